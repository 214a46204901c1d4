package io.lakestream.lake.offsets;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
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
 * <p>Another engine's snapshot expiry (Trino's or Spark's {@code expire_snapshots}) may remove
 * every snapshot before the current one, and with them the last summary holding offsets. Every
 * tiering commit therefore also moves the tag {@value #TAG} to the snapshot it commits, in the same
 * metadata change; expiry keeps tagged snapshots, so the offsets survive in the tagged snapshot's
 * summary ({@link #tieredSnapshot}). The catalog's own store keeps a copy too ({@link
 * TieredOffsetsStore}), for when the tag is dropped as well.
 *
 * <p>Immutable; {@link #equals} compares the offsets, which is how a commit checks that its base is
 * still the state its round started from.
 */
public final class TieredOffsets {
  /** The snapshot summary property that holds the offsets. */
  public static final String SUMMARY_KEY = "lakestream.offsets";

  /** The tag every tiering commit moves to the snapshot it commits. */
  public static final String TAG = "lakestream-tiered";

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
   * The offsets a table's current state contains: those of its {@link #tieredSnapshot}, or {@link
   * #NONE} when it has none.
   *
   * @throws IllegalArgumentException when that summary is not valid offsets JSON
   */
  public static TieredOffsets committedIn(TableMetadata metadata) {
    return tieredSnapshot(metadata).map(TieredOffsets::of).orElse(NONE);
  }

  /**
   * The offsets the state of snapshot {@code snapshotId} contains ({@link
   * #tieredSnapshot(TableMetadata, Snapshot)}).
   *
   * @throws IllegalArgumentException when the metadata has no such snapshot, or its summary is not
   *     valid offsets JSON
   */
  public static TieredOffsets committedAt(TableMetadata metadata, long snapshotId) {
    Snapshot snapshot = metadata.snapshot(snapshotId);
    if (snapshot == null) {
      throw new IllegalArgumentException("Table has no snapshot " + snapshotId);
    }
    return tieredSnapshot(metadata, snapshot).map(TieredOffsets::of).orElse(NONE);
  }

  /** The offsets in a snapshot's summary, which must have them. */
  public static TieredOffsets of(Snapshot snapshot) {
    return parse(snapshot.summary().get(SUMMARY_KEY));
  }

  /**
   * The snapshot whose summary holds the offsets of a table's current state: the newest snapshot of
   * the current snapshot's ancestry (as far as it is still in the metadata) whose summary has them;
   * else the snapshot tagged {@value #TAG} when it has them and is not newer than the current
   * snapshot (by sequence number: a table rolled back or replaced to a state before the tagged
   * snapshot does not hold what the tag says); else empty.
   */
  public static Optional<Snapshot> tieredSnapshot(TableMetadata metadata) {
    return tieredSnapshot(metadata, metadata.currentSnapshot());
  }

  /**
   * Like {@link #tieredSnapshot(TableMetadata)}, for the state of snapshot {@code current} (a
   * reader pinned to an older snapshot than the table's current one), or of an empty table when it
   * is null.
   */
  public static Optional<Snapshot> tieredSnapshot(TableMetadata metadata, Snapshot current) {
    Snapshot snapshot = current;
    while (snapshot != null) {
      if (hasOffsets(snapshot)) {
        return Optional.of(snapshot);
      }
      snapshot = snapshot.parentId() == null ? null : metadata.snapshot(snapshot.parentId());
    }
    SnapshotRef tag = metadata.ref(TAG);
    Snapshot tagged = tag == null || !tag.isTag() ? null : metadata.snapshot(tag.snapshotId());
    if (current == null
        || tagged == null
        || !hasOffsets(tagged)
        || tagged.sequenceNumber() > current.sequenceNumber()) {
      return Optional.empty();
    }
    return Optional.of(tagged);
  }

  /** Whether a snapshot's own summary holds tiered offsets (a tiering commit's does). */
  public static boolean isTiered(Snapshot snapshot) {
    return hasOffsets(snapshot);
  }

  private static boolean hasOffsets(Snapshot snapshot) {
    return snapshot.summary() != null && snapshot.summary().containsKey(SUMMARY_KEY);
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
