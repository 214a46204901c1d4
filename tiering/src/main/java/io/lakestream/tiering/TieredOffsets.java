package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.util.JsonUtil;

/**
 * How far each bucket's log is contained in a lake snapshot: per partition and bucket, the offset
 * of the first record that is <em>not</em> in the table yet (the next offset to tier). A bucket
 * that has no entry has tiered nothing: its next offset is the start of its log.
 *
 * <p>Stored in the summary of every snapshot tiering commits, under {@value #SUMMARY_KEY}, as
 *
 * <pre>{@code
 * {"version":1,"partitions":{"ts_day=2026-11-30/region=eu":{"0":120,"1":88}}}
 * }</pre>
 *
 * where the partition is named as the log names it (the Iceberg partition path; {@code ""} for an
 * unpartitioned table) and each bucket maps to its next offset. Snapshots committed by others (a
 * user's insert, a compaction) carry no offsets; the offsets of a table are those of the newest
 * snapshot in the current snapshot's ancestry that has them ({@link #committedIn}).
 *
 * <p>Immutable; {@link #equals} compares the offsets, which is how a commit checks that its base is
 * still the state its round started from.
 */
public final class TieredOffsets {
  /** The snapshot summary property that holds the offsets. */
  public static final String SUMMARY_KEY = "lakestream.offsets";

  private static final int VERSION = 1;

  public static final TieredOffsets NONE = new TieredOffsets(Map.of());

  private final Map<String, Map<Integer, Long>> partitions;

  private TieredOffsets(Map<String, Map<Integer, Long>> partitions) {
    Map<String, Map<Integer, Long>> copy = new TreeMap<>();
    partitions.forEach(
        (partition, buckets) -> {
          if (!buckets.isEmpty()) {
            copy.put(partition, Collections.unmodifiableMap(new TreeMap<>(buckets)));
          }
        });
    this.partitions = Collections.unmodifiableMap(copy);
  }

  public static TieredOffsets of(Map<String, Map<Integer, Long>> partitions) {
    requireNonNull(partitions, "partitions is null");
    partitions.forEach(
        (partition, buckets) ->
            buckets.forEach(
                (bucket, offset) -> {
                  if (bucket < 0 || offset < 0) {
                    throw new IllegalArgumentException(
                        "Invalid tiered offset " + offset + " of bucket " + bucket);
                  }
                }));
    return new TieredOffsets(partitions);
  }

  /**
   * The offsets a table's current state contains: those of the newest snapshot of the current
   * snapshot's ancestry whose summary has them, or {@link #NONE}.
   *
   * @throws IllegalArgumentException when that summary is not valid offsets JSON
   */
  public static TieredOffsets committedIn(TableMetadata metadata) {
    Snapshot snapshot = metadata.currentSnapshot();
    while (snapshot != null) {
      String json = snapshot.summary() == null ? null : snapshot.summary().get(SUMMARY_KEY);
      if (json != null) {
        return parse(json);
      }
      snapshot = snapshot.parentId() == null ? null : metadata.snapshot(snapshot.parentId());
    }
    return NONE;
  }

  /**
   * @throws IllegalArgumentException naming what is wrong with the JSON
   */
  public static TieredOffsets parse(String json) {
    JsonNode root;
    try {
      root = JsonUtil.mapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid " + SUMMARY_KEY + ": " + e.getMessage(), e);
    }
    if (root == null || !root.isObject() || root.path("version").asInt(-1) != VERSION) {
      throw new IllegalArgumentException(
          "Invalid " + SUMMARY_KEY + ": expected an object with version " + VERSION + ": " + json);
    }
    Map<String, Map<Integer, Long>> partitions = new TreeMap<>();
    JsonNode partitionsNode = root.path("partitions");
    for (Map.Entry<String, JsonNode> partition : partitionsNode.properties()) {
      Map<Integer, Long> buckets = new TreeMap<>();
      for (Map.Entry<String, JsonNode> bucket : partition.getValue().properties()) {
        if (!bucket.getValue().canConvertToLong()) {
          throw new IllegalArgumentException(
              "Invalid " + SUMMARY_KEY + ": offset of bucket " + bucket.getKey() + " in " + json);
        }
        try {
          buckets.put(Integer.parseInt(bucket.getKey()), bucket.getValue().asLong());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "Invalid " + SUMMARY_KEY + ": bucket '" + bucket.getKey() + "' in " + json, e);
        }
      }
      partitions.put(partition.getKey(), buckets);
    }
    return of(partitions);
  }

  public String toJson() {
    try {
      return JsonUtil.generate(
          generator -> {
            generator.writeStartObject();
            generator.writeNumberField("version", VERSION);
            generator.writeObjectFieldStart("partitions");
            for (Map.Entry<String, Map<Integer, Long>> partition : partitions.entrySet()) {
              generator.writeObjectFieldStart(partition.getKey());
              for (Map.Entry<Integer, Long> bucket : partition.getValue().entrySet()) {
                generator.writeNumberField(Integer.toString(bucket.getKey()), bucket.getValue());
              }
              generator.writeEndObject();
            }
            generator.writeEndObject();
            generator.writeEndObject();
          },
          false);
    } catch (UncheckedIOException e) {
      throw new IllegalStateException("Cannot write " + SUMMARY_KEY, e);
    }
  }

  /** The next offset to tier of a bucket; 0 (the start of the log) when it has none. */
  public long offset(String partition, int bucket) {
    Map<Integer, Long> buckets = partitions.get(partition);
    Long offset = buckets == null ? null : buckets.get(bucket);
    return offset == null ? 0 : offset;
  }

  /** Per partition, per bucket, the next offset; sorted. */
  public Map<String, Map<Integer, Long>> partitions() {
    return partitions;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TieredOffsets that && partitions.equals(that.partitions);
  }

  @Override
  public int hashCode() {
    return partitions.hashCode();
  }

  @Override
  public String toString() {
    return toJson();
  }
}
