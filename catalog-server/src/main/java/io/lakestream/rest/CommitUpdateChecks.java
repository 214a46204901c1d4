package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * Checks that the updates of a table commit name only partition specs, sort orders, schemas and
 * snapshots the table has, or that an earlier update of the same commit adds, before Iceberg's
 * metadata builder applies them. The builder fails on some of these with exceptions that do not
 * name the condition (an unknown spec id in {@code set-default-spec} is a NullPointerException
 * "Cannot read field "fields" because "spec" is null") and accepts statistics of a snapshot the
 * table does not have; here each is a {@link BadRequestException} naming the update, the table and
 * the id.
 *
 * <p>Conservative: an id is refused only when it is certainly missing. Once the commit adds a spec,
 * sort order or schema (whose id the builder assigns, possibly reusing an equal one), ids of that
 * kind are left to the builder; {@code -1} ("the last one added") is left to it too, as its message
 * for that case names the condition. Removals of ids the table does not have are left alone: they
 * are no-ops, as in Iceberg's reference server.
 *
 * <p>Stateless.
 */
final class CommitUpdateChecks {
  private CommitUpdateChecks() {}

  /**
   * @param table the table the commit changes, for messages
   * @param base the table's current metadata, asked for only when an update names an id that the
   *     commit does not add itself; empty when the table does not exist (then nothing is checked)
   * @throws BadRequestException naming the first update whose id the table does not have
   */
  static void check(
      TableIdentifier table, Supplier<Optional<TableMetadata>> base, List<MetadataUpdate> updates) {
    requireNonNull(table, "table is null");
    requireNonNull(base, "base is null");
    if (updates == null || !needsBase(updates)) {
      return;
    }
    Optional<TableMetadata> current = base.get();
    if (current.isEmpty()) {
      return;
    }
    TableMetadata metadata = current.get();
    Set<Long> snapshots = new HashSet<>();
    metadata.snapshots().forEach(snapshot -> snapshots.add(snapshot.snapshotId()));
    boolean specAdded = false;
    boolean sortOrderAdded = false;
    boolean schemaAdded = false;
    for (MetadataUpdate update : updates) {
      switch (update) {
        case MetadataUpdate.AddPartitionSpec ignored -> specAdded = true;
        case MetadataUpdate.AddSortOrder ignored -> sortOrderAdded = true;
        case MetadataUpdate.AddSchema ignored -> schemaAdded = true;
        case MetadataUpdate.AddSnapshot add -> snapshots.add(add.snapshot().snapshotId());
        case MetadataUpdate.SetDefaultPartitionSpec set -> {
          if (!specAdded && set.specId() != -1 && !metadata.specsById().containsKey(set.specId())) {
            throw missing("set the default partition spec", table, "partition spec", set.specId());
          }
        }
        case MetadataUpdate.SetDefaultSortOrder set -> {
          if (!sortOrderAdded
              && set.sortOrderId() != -1
              && !metadata.sortOrdersById().containsKey(set.sortOrderId())) {
            throw missing("set the default sort order", table, "sort order", set.sortOrderId());
          }
        }
        case MetadataUpdate.SetCurrentSchema set -> {
          if (!schemaAdded
              && set.schemaId() != -1
              && !metadata.schemasById().containsKey(set.schemaId())) {
            throw missing("set the current schema", table, "schema", set.schemaId());
          }
        }
        case MetadataUpdate.SetSnapshotRef set -> {
          if (!snapshots.contains(set.snapshotId())) {
            throw missing("set ref " + set.name(), table, "snapshot", set.snapshotId());
          }
        }
        case MetadataUpdate.SetStatistics set -> {
          if (set.statisticsFile() != null
              && !snapshots.contains(set.statisticsFile().snapshotId())) {
            throw missing("set statistics", table, "snapshot", set.statisticsFile().snapshotId());
          }
        }
        case MetadataUpdate.SetPartitionStatistics set -> {
          long snapshotId =
              set.partitionStatisticsFile() == null
                  ? -1
                  : set.partitionStatisticsFile().snapshotId();
          if (set.partitionStatisticsFile() != null && !snapshots.contains(snapshotId)) {
            throw missing("set partition statistics", table, "snapshot", snapshotId);
          }
        }
        default -> {}
      }
    }
  }

  /** Whether an update names an id that the commit does not add itself. */
  private static boolean needsBase(List<MetadataUpdate> updates) {
    Set<Long> added = new HashSet<>();
    for (MetadataUpdate update : updates) {
      switch (update) {
        case MetadataUpdate.AddSnapshot add -> added.add(add.snapshot().snapshotId());
        case MetadataUpdate.SetSnapshotRef set -> {
          if (!added.contains(set.snapshotId())) {
            return true;
          }
        }
        case MetadataUpdate.SetStatistics set -> {
          if (set.statisticsFile() == null || !added.contains(set.statisticsFile().snapshotId())) {
            return true;
          }
        }
        case MetadataUpdate.SetPartitionStatistics set -> {
          if (set.partitionStatisticsFile() == null
              || !added.contains(set.partitionStatisticsFile().snapshotId())) {
            return true;
          }
        }
        case MetadataUpdate.SetDefaultPartitionSpec set -> {
          if (set.specId() != -1) {
            return true;
          }
        }
        case MetadataUpdate.SetDefaultSortOrder set -> {
          if (set.sortOrderId() != -1) {
            return true;
          }
        }
        case MetadataUpdate.SetCurrentSchema set -> {
          if (set.schemaId() != -1) {
            return true;
          }
        }
        default -> {}
      }
    }
    return false;
  }

  private static BadRequestException missing(
      String action, TableIdentifier table, String kind, long id) {
    return new BadRequestException("Cannot %s of %s: it has no %s %s", action, table, kind, id);
  }
}
