package io.lakestream.flink.source;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;

/** The read options of a streaming table (table options or {@code OPTIONS} hints). */
public final class ScanOptions {
  /** How a read starts. */
  public enum StartupMode {
    /** The lake snapshot, then the log from the snapshot's offsets (a union read). */
    FULL,
    /** The log from each bucket's start. */
    EARLIEST,
    /** The log from each bucket's high watermark when the job starts. */
    LATEST,
    /** The log from the first row committed at or after {@code scan.startup.timestamp}. */
    TIMESTAMP,
    /** The log from the offsets in {@code scan.startup.offsets}. */
    OFFSETS
  }

  /** Which changes a primary-key table's read emits. */
  public enum ChangelogMode {
    /** Every change with its row kind: {@code +I -U +U -D}. */
    ALL,
    /**
     * Upserts: {@code +I +U -D} without the {@code -U} rows; Flink's planner restores what its
     * operators need (a {@code ChangelogNormalize} keyed by the primary key).
     */
    UPSERT
  }

  public static final ConfigOption<StartupMode> STARTUP_MODE =
      ConfigOptions.key("scan.startup.mode")
          .enumType(StartupMode.class)
          .defaultValue(StartupMode.FULL)
          .withDescription(
              "full (lake snapshot, then the log from its offsets), earliest, latest, timestamp"
                  + " or offsets");

  public static final ConfigOption<String> STARTUP_TIMESTAMP =
      ConfigOptions.key("scan.startup.timestamp")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "With scan.startup.mode=timestamp: epoch milliseconds or an ISO-8601 instant such"
                  + " as 2026-12-05T10:15:30Z");

  public static final ConfigOption<String> STARTUP_OFFSETS =
      ConfigOptions.key("scan.startup.offsets")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "With scan.startup.mode=offsets: bucket:offset pairs, comma separated, with"
                  + " partition/bucket:offset for partitioned tables; other buckets start at"
                  + " their log's start");

  public static final ConfigOption<Boolean> BOUNDED =
      ConfigOptions.key("scan.bounded")
          .booleanType()
          .noDefaultValue()
          .withDescription(
              "Stop at each bucket's high watermark when the job starts (default: true in batch"
                  + " execution mode, false in streaming mode)");

  public static final ConfigOption<Duration> PARTITION_DISCOVERY_INTERVAL =
      ConfigOptions.key("scan.partition.discovery.interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription("How often an unbounded read looks for new partitions");

  public static final ConfigOption<ChangelogMode> CHANGELOG_MODE =
      ConfigOptions.key("scan.changelog-mode")
          .enumType(ChangelogMode.class)
          .defaultValue(ChangelogMode.ALL)
          .withDescription(
              "For primary-key tables: all (+I -U +U -D) or upsert (+I +U -D, without the -U"
                  + " rows; the planner adds a ChangelogNormalize where its operators need them)");

  private ScanOptions() {}

  /** Epoch milliseconds of a {@link #STARTUP_TIMESTAMP} value. */
  static long parseTimestamp(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException notMillis) {
      try {
        return Instant.parse(value.trim()).toEpochMilli();
      } catch (DateTimeParseException e) {
        throw new ValidationException(
            "Option '"
                + STARTUP_TIMESTAMP.key()
                + "' must be epoch milliseconds or an ISO-8601 instant, not "
                + value);
      }
    }
  }

  /** The offsets of a {@link #STARTUP_OFFSETS} value, by partition and bucket. */
  static Map<String, Map<Integer, Long>> parseOffsets(String value) {
    Map<String, Map<Integer, Long>> offsets = new HashMap<>();
    for (String entry : value.split(",")) {
      String trimmed = entry.trim();
      int colon = trimmed.lastIndexOf(':');
      int slash = trimmed.lastIndexOf('/', colon);
      try {
        if (colon <= 0) {
          throw new NumberFormatException();
        }
        String partition = slash < 0 ? "" : trimmed.substring(0, slash);
        int bucket = Integer.parseInt(trimmed.substring(slash + 1, colon));
        long offset = Long.parseLong(trimmed.substring(colon + 1));
        if (bucket < 0 || offset < 0) {
          throw new NumberFormatException();
        }
        offsets.computeIfAbsent(partition, p -> new TreeMap<>()).put(bucket, offset);
      } catch (NumberFormatException | IndexOutOfBoundsException e) {
        throw new ValidationException(
            "Option '"
                + STARTUP_OFFSETS.key()
                + "' must be bucket:offset pairs (partition/bucket:offset for a partitioned"
                + " table), not '"
                + entry
                + "'");
      }
    }
    return offsets;
  }
}
