package io.lakestream.tiering;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Settings of the tiering service embedded in the server. How often each table tiers is a table
 * property, {@value #INTERVAL_PROPERTY}, so that it travels with the table.
 *
 * @param enabled whether the server runs the tiering service
 * @param discoveryInterval how often the service lists the catalog for log tables
 * @param readTimeout how long one round may take to read its log ranges
 * @param orphanFileAge how old a data file that tiering wrote and no snapshot references must be
 *     before {@link OrphanFiles} deletes it; also how often each table is swept (but not more often
 *     than the discovery interval)
 * @param maxRowsPerRound log rows after which a round stops reading and commits what it has (the
 *     next round goes on from there); bounds a round's memory during a long catch-up
 * @param dataFileWriter how log tables' data files are written
 * @param threads how many tables' rounds may run at once; rounds of one table never overlap
 */
public record TieringConfig(
    boolean enabled,
    Duration discoveryInterval,
    Duration readTimeout,
    Duration orphanFileAge,
    int maxRowsPerRound,
    DataFileWriter dataFileWriter,
    int threads) {
  public static final ConfigKey<Boolean> ENABLED =
      ConfigKey.bool(
          "tiering.enabled",
          true,
          "Run the tiering service: commit log tables into their Iceberg tables");
  public static final ConfigKey<Duration> DISCOVERY_INTERVAL =
      ConfigKey.duration(
          "tiering.discovery-interval",
          Duration.ofSeconds(10),
          "How often tiering lists the catalog for new and dropped log tables");
  public static final ConfigKey<Duration> READ_TIMEOUT =
      ConfigKey.duration(
          "tiering.read-timeout",
          Duration.ofMinutes(5),
          "How long one tiering round may take to read its log ranges before it fails");

  public static final ConfigKey<Duration> ORPHAN_FILE_AGE =
      ConfigKey.duration(
          "tiering.orphan-file-age",
          Duration.ofHours(1),
          "How old an unreferenced data file written by tiering must be before it is deleted; longer"
              + " than any round takes, since a round in another process may still commit it");

  public static final ConfigKey<Integer> MAX_ROWS_PER_ROUND =
      ConfigKey.integer(
          "tiering.max-rows-per-round",
          (int) IcebergTableTiering.DEFAULT_MAX_ROWS_PER_ROUND,
          1,
          Integer.MAX_VALUE,
          "Log rows after which a tiering round stops reading and commits what it has; the next"
              + " round goes on from there");

  public static final ConfigKey<DataFileWriter> DATA_FILE_WRITER =
      ConfigKey.choice(
          "tiering.data-file-writer",
          DataFileWriter.class,
          DataFileWriter.DUCKDB,
          "How log tables' Parquet data files are written: duckdb (column by column from the"
              + " log's Arrow batches) or iceberg (row by row with Iceberg's generic writer)");

  public static final ConfigKey<Integer> THREADS =
      ConfigKey.integer(
          "tiering.threads",
          4,
          1,
          256,
          "How many tables' tiering rounds may run at once (rounds of one table never overlap);"
              + " rounds mostly wait on file writes and commits, so more than the cores helps");

  public static final List<ConfigKey<?>> KEYS =
      List.of(
          ENABLED,
          DISCOVERY_INTERVAL,
          READ_TIMEOUT,
          ORPHAN_FILE_AGE,
          MAX_ROWS_PER_ROUND,
          DATA_FILE_WRITER,
          THREADS);

  /** The table property that sets how often a table tiers ({@code 30s}, {@code 1m}, ...). */
  public static final String INTERVAL_PROPERTY = LakestreamProperties.TIERING_INTERVAL;

  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);
  public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

  /**
   * The longest tiering interval a table may ask for: beyond it the log would outgrow its default
   * retention ({@code log.retention}, 7 days) before any of it tiers, and far beyond it the time of
   * the next round does not fit a date.
   */
  public static final Duration MAX_INTERVAL = Duration.ofDays(7);

  private static final ConfigKey<Duration> INTERVAL =
      ConfigKey.duration(INTERVAL_PROPERTY, DEFAULT_INTERVAL, "How often a table tiers");

  public TieringConfig {
    java.util.Objects.requireNonNull(discoveryInterval, "discoveryInterval is null");
    java.util.Objects.requireNonNull(readTimeout, "readTimeout is null");
    java.util.Objects.requireNonNull(orphanFileAge, "orphanFileAge is null");
    java.util.Objects.requireNonNull(dataFileWriter, "dataFileWriter is null");
    if (orphanFileAge.isNegative()) {
      throw new IllegalArgumentException(
          "Invalid tiering.orphan-file-age " + orphanFileAge + ": must not be negative");
    }
    if (maxRowsPerRound < 1) {
      throw new IllegalArgumentException(
          "Invalid tiering.max-rows-per-round " + maxRowsPerRound + ": must be positive");
    }
    if (threads < 1) {
      throw new IllegalArgumentException(
          "Invalid tiering.threads " + threads + ": must be positive");
    }
  }

  public static TieringConfig from(Configuration configuration) {
    return new TieringConfig(
        configuration.get(ENABLED),
        configuration.get(DISCOVERY_INTERVAL),
        configuration.get(READ_TIMEOUT),
        configuration.get(ORPHAN_FILE_AGE),
        configuration.get(MAX_ROWS_PER_ROUND),
        configuration.get(DATA_FILE_WRITER),
        configuration.get(THREADS));
  }

  public static TieringConfig defaults() {
    return from(Configuration.builder(KEYS).build());
  }

  /**
   * A table's tiering interval from its properties: {@value #INTERVAL_PROPERTY}, or {@link
   * #DEFAULT_INTERVAL} when it is not set.
   *
   * @throws IllegalArgumentException naming the property and value when it is not a duration from
   *     {@link #MIN_INTERVAL} to {@link #MAX_INTERVAL}
   */
  public static Duration interval(Map<String, String> tableProperties) {
    String raw = tableProperties.get(INTERVAL_PROPERTY);
    if (raw == null) {
      return DEFAULT_INTERVAL;
    }
    Duration interval;
    try {
      interval =
          Configuration.builder(List.of(INTERVAL))
              .layer("table", Map.of(INTERVAL_PROPERTY, raw))
              .build()
              .get(INTERVAL);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Invalid " + INTERVAL_PROPERTY + " '" + raw + "': expected a duration such as 30s or 5m",
          e);
    }
    if (interval.compareTo(MIN_INTERVAL) < 0) {
      throw new IllegalArgumentException(
          "Invalid " + INTERVAL_PROPERTY + " '" + raw + "': the shortest interval is 1s");
    }
    if (interval.compareTo(MAX_INTERVAL) > 0) {
      throw new IllegalArgumentException(
          "Invalid " + INTERVAL_PROPERTY + " '" + raw + "': the longest interval is 7d");
    }
    return interval;
  }

  /**
   * The table property that says after how many delete files in its current snapshot a tiered
   * primary-key table is compacted ({@link PrimaryKeyCompaction}).
   */
  public static final String COMPACTION_DELETE_FILES_PROPERTY =
      LakestreamProperties.TIERING_COMPACTION_DELETE_FILES;

  public static final int DEFAULT_COMPACTION_DELETE_FILES = 10;

  /**
   * A primary-key table's compaction threshold from its properties: {@value
   * #COMPACTION_DELETE_FILES_PROPERTY}, or {@value #DEFAULT_COMPACTION_DELETE_FILES}.
   *
   * @throws IllegalArgumentException naming the property and value when it is not a positive
   *     integer
   */
  public static int compactionDeleteFiles(Map<String, String> tableProperties) {
    String raw = tableProperties.get(COMPACTION_DELETE_FILES_PROPERTY);
    if (raw == null) {
      return DEFAULT_COMPACTION_DELETE_FILES;
    }
    try {
      int files = Integer.parseInt(raw.trim());
      if (files >= 1) {
        return files;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "Invalid "
            + COMPACTION_DELETE_FILES_PROPERTY
            + " '"
            + raw
            + "': expected a positive number of delete files");
  }

  /**
   * Table property: how many small data files in one partition make a log table compact (see {@code
   * LogTableCompaction}); also how many files the rounds since the last check must have written
   * before the table is checked.
   */
  public static final String COMPACTION_SMALL_FILES_PROPERTY =
      LakestreamProperties.TIERING_COMPACTION_SMALL_FILES;

  /**
   * Every query of a table opens each of its small files: with a table tiering every second, a
   * small Flight SQL query took 19 ms (p50) at 32 and 15 ms at 8, its server CPU a fifth less
   * (DuckDB over 32 small files: 9.8 ms for view, prepare and run; over 8: 5.4 ms). Iceberg's own
   * {@code rewrite_data_files} rewrites a group from 5 files on ({@code min-input-files}).
   */
  public static final int DEFAULT_COMPACTION_SMALL_FILES = 8;

  /**
   * A log table's compaction threshold from its properties: {@value
   * #COMPACTION_SMALL_FILES_PROPERTY}, or {@value #DEFAULT_COMPACTION_SMALL_FILES}.
   *
   * @throws IllegalArgumentException naming the property and value when it is not an integer of at
   *     least 2
   */
  public static int compactionSmallFiles(Map<String, String> tableProperties) {
    String raw = tableProperties.get(COMPACTION_SMALL_FILES_PROPERTY);
    if (raw == null) {
      return DEFAULT_COMPACTION_SMALL_FILES;
    }
    try {
      int files = Integer.parseInt(raw.trim());
      if (files >= 2) {
        return files;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "Invalid "
            + COMPACTION_SMALL_FILES_PROPERTY
            + " '"
            + raw
            + "': expected a number of small files of at least 2");
  }
}
