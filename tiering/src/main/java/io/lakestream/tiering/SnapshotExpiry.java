package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import java.time.Clock;
import java.time.Duration;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires old snapshots of tiered tables. Tiering commits a snapshot every interval (every second
 * at the shortest), and every snapshot stays in the table's metadata until it is expired, so
 * without expiry a table's metadata, and with it every {@code loadTable}, grows without bound.
 *
 * <p>The age limit is Iceberg's own table property {@value TableProperties#MAX_SNAPSHOT_AGE_MS}
 * when the table sets it, otherwise {@link #DEFAULT_MAX_AGE} (shorter than Iceberg's five days,
 * because of the commit rate); at least {@value TableProperties#MIN_SNAPSHOTS_TO_KEEP} snapshots
 * (default 1) are kept. The newest snapshot holding the table's {@link TieredOffsets} is never
 * expired, whatever its age: it is where the next round starts (it is also tagged {@value
 * TieredOffsets#TAG}, which keeps it from other engines' expiry). Expiry runs after a committed
 * round once the oldest snapshot is older than the limit by {@link #SLACK}, so each run removes
 * about a minute of snapshots rather than one. Files only expired snapshots referenced are deleted
 * by Iceberg's expiry.
 *
 * <p>Thread safe.
 */
final class SnapshotExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiry.class);

  /** How long snapshots of a tiered table are kept when the table does not say. */
  static final Duration DEFAULT_MAX_AGE = Duration.ofHours(1);

  /** How much older than the limit the oldest snapshot gets before an expiry runs. */
  static final Duration SLACK = Duration.ofMinutes(1);

  private final Clock clock;

  SnapshotExpiry(Clock clock) {
    this.clock = requireNonNull(clock, "clock is null");
  }

  /**
   * Expires the table's old snapshots if some are due. Failures are logged, never thrown.
   *
   * @return the number of snapshots expired
   */
  int expireIfDue(TablePath path, Table table) {
    try {
      long maxAgeMillis =
          PropertyUtil.propertyAsLong(
              table.properties(), TableProperties.MAX_SNAPSHOT_AGE_MS, DEFAULT_MAX_AGE.toMillis());
      int keep =
          Math.max(
              1,
              PropertyUtil.propertyAsInt(
                  table.properties(),
                  TableProperties.MIN_SNAPSHOTS_TO_KEEP,
                  TableProperties.MIN_SNAPSHOTS_TO_KEEP_DEFAULT));
      long now = clock.millis();
      long cutoff = now - maxAgeMillis;
      long oldest = Long.MAX_VALUE;
      for (Snapshot snapshot : table.snapshots()) {
        oldest = Math.min(oldest, snapshot.timestampMillis());
      }
      if (oldest == Long.MAX_VALUE || oldest >= cutoff - Math.min(SLACK.toMillis(), maxAgeMillis)) {
        return 0;
      }
      Snapshot tiered = newestWithOffsets(table);
      if (tiered != null) {
        cutoff = Math.min(cutoff, tiered.timestampMillis());
      }
      int before = count(table);
      table.expireSnapshots().expireOlderThan(cutoff).retainLast(keep).commit();
      int expired = before - count(table);
      LOG.debug("Expired {} snapshots of {} older than {}", expired, path, cutoff);
      return expired;
    } catch (RuntimeException e) {
      LOG.warn("Expiring old snapshots of {} failed; the next round retries", path, e);
      return 0;
    }
  }

  private static int count(Table table) {
    int snapshots = 0;
    for (Snapshot ignored : table.snapshots()) {
      snapshots++;
    }
    return snapshots;
  }

  private static Snapshot newestWithOffsets(Table table) {
    if (!(table instanceof HasTableOperations operations)) {
      return null;
    }
    return TieredOffsets.tieredSnapshot(operations.operations().current()).orElse(null);
  }
}
