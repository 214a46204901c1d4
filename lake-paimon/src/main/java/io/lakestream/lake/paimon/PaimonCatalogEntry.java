package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;
import org.apache.paimon.fs.Path;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a Paimon-tiered table's catalog entry pointing at the Paimon table's state.
 *
 * <p>The entry's own Iceberg metadata keeps what the server reads to serve the streaming table (its
 * {@code lakestream.*} and other properties, schemas with identifier fields, partition spec, table
 * uuid); only its snapshots come from Paimon. After every Paimon commit, Paimon writes Iceberg
 * metadata {@code <Paimon table>/metadata/v<snapshot id>.metadata.json} whose snapshots' manifest
 * lists and manifests (in the same directory) name Paimon's data files. {@link #sync} commits, on
 * top of the entry's current metadata, the Paimon snapshots the entry does not have yet, makes
 * Paimon's current snapshot the entry's {@code main}, and removes the snapshots Paimon expired. So
 * an Iceberg reader of the entry (Spark, Trino, the Iceberg REST client) reads exactly Paimon's
 * current files.
 *
 * <p>The snapshot made current gets the summary property {@value TieredOffsets#SUMMARY_KEY} with
 * the offsets of its Paimon snapshot, so that the tiering status, log retention and union reads
 * find the table's offsets in the entry as they do for Iceberg-tiered tables. For a primary-key
 * table a snapshot with files not yet fully compacted ({@link PaimonIcebergView}) does not get
 * them: Iceberg readers do not see those files' rows (a round's compaction snapshot, or an append
 * on compacted files only, does). A snapshot another engine committed to the Paimon table has no
 * offsets of its own; it gets those of the state it was committed on ({@link PaimonStartOffsets}:
 * the newest snapshot with offsets, the Paimon tag, else the catalog's record), since another
 * engine's commit moves no log offset. Without that, once another engine expired the Paimon
 * snapshots with offsets the entry had none, and union reads read every log from its start again.
 *
 * <p>A sync changes the entry through a compare-and-swap of its metadata; when another commit to
 * the entry wins, it reloads and tries again (a few times). It is idempotent: an entry that already
 * points at Paimon's latest snapshot is left alone, so running it before and after every round is
 * cheap. Thread safe.
 */
final class PaimonCatalogEntry {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonCatalogEntry.class);
  private static final int ATTEMPTS = 4;

  private final LakeCatalog lake;
  private final TieredOffsetsStore offsetsStore;

  PaimonCatalogEntry(LakeCatalog lake, TieredOffsetsStore offsetsStore) {
    this.lake = requireNonNull(lake, "lake is null");
    this.offsetsStore = requireNonNull(offsetsStore, "offsetsStore is null");
  }

  /**
   * Points the entry of {@code path} at the newest Iceberg metadata Paimon wrote for {@code table}.
   * Does nothing when the Paimon table has no snapshot or no Iceberg metadata for its latest one
   * yet (Paimon writes it after its commit; when a crash lost it, {@link PaimonTableTiering} has
   * Paimon write it before it syncs).
   *
   * @throws TieringException when Paimon's Iceberg schema does not match the entry's
   * @throws RuntimeException from the catalog or the file system
   */
  void sync(TablePath path, FileStoreTable table, boolean primaryKey) {
    Long latest = table.snapshotManager().latestSnapshotIdFromFileSystem();
    if (latest == null) {
      return;
    }
    Path location = icebergMetadata(table, latest);
    TableMetadata generated;
    try {
      if (!table.fileIO().exists(location)) {
        LOG.info("Paimon has not written Iceberg metadata of snapshot {} of {} yet", latest, path);
        return;
      }
      generated =
          TableMetadataParser.fromJson(location.toString(), table.fileIO().readFileUtf8(location));
    } catch (IOException e) {
      throw new TieringException("Cannot read " + location + " of " + path + ": " + e, e);
    }
    Snapshot current = generated.currentSnapshot();
    if (current == null) {
      return;
    }
    org.apache.paimon.Snapshot paimonSnapshot = table.snapshotManager().snapshot(latest);
    String offsets =
        paimonSnapshot.properties() == null
            ? null
            : paimonSnapshot.properties().get(TieredOffsets.SUMMARY_KEY);
    // Rows not compacted yet are invisible to Iceberg readers: the snapshot holds no offsets then.
    boolean hidesRows = primaryKey && PaimonIcebergView.hidesRows(table, paimonSnapshot);
    if (hidesRows) {
      offsets = null;
    }
    boolean inherits = !hidesRows && offsets == null;
    for (int attempt = 1; ; attempt++) {
      TableOperations operations = ((HasTableOperations) lake.loadTable(path)).operations();
      TableMetadata base = operations.current();
      Snapshot entryCurrent = base.currentSnapshot();
      if (entryCurrent != null && entryCurrent.sequenceNumber() >= current.sequenceNumber()) {
        return; // in sync, or a later sync won
      }
      if (inherits) {
        offsets = inheritedOffsets(path, table, latest, base.uuid());
        inherits = false;
      }
      TableMetadata updated = updated(path, base, generated, offsets);
      try {
        operations.commit(base, updated);
        LOG.debug("Pointed {} at Paimon snapshot {}", path, current.snapshotId());
        return;
      } catch (CommitFailedException e) {
        if (attempt >= ATTEMPTS) {
          throw e;
        }
        LOG.debug("Pointing {} at Paimon snapshot {} lost a race; again", path, latest, e);
      }
    }
  }

  /**
   * The offsets JSON of the state a snapshot without offsets was committed on, or null when there
   * are none to be had. Only asked for a snapshot whose rows Iceberg readers all see, so the older
   * state's rows are in its Iceberg view too.
   */
  private String inheritedOffsets(TablePath path, FileStoreTable table, long latest, String uuid) {
    Optional<org.apache.paimon.Snapshot> tiered = PaimonStartOffsets.tieredSnapshot(table, latest);
    if (tiered.isPresent()) {
      return tiered.get().properties().get(TieredOffsets.SUMMARY_KEY);
    }
    try {
      return offsetsStore
          .load(uuid)
          .filter(entry -> entry.snapshotId() <= latest)
          .map(entry -> entry.offsets().toJson())
          .orElse(null);
    } catch (RuntimeException e) {
      LOG.warn("Cannot read the catalog's record of {}'s tiered offsets", path, e);
      return null;
    }
  }

  /** Where Paimon writes the Iceberg metadata of a snapshot ({@code table-location} storage). */
  static Path icebergMetadata(FileStoreTable table, long snapshotId) {
    return new Path(table.location(), "metadata/v" + snapshotId + ".metadata.json");
  }

  private static TableMetadata updated(
      TablePath path, TableMetadata base, TableMetadata generated, String offsets) {
    TableMetadata.Builder builder = TableMetadata.buildFrom(base);
    Set<Long> generatedIds = new HashSet<>();
    List<Snapshot> added = new ArrayList<>();
    for (Snapshot snapshot : generated.snapshots()) {
      generatedIds.add(snapshot.snapshotId());
      if (base.snapshot(snapshot.snapshotId()) == null
          && snapshot.sequenceNumber() > base.lastSequenceNumber()) {
        added.add(snapshot);
      }
    }
    added.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
    long currentId = generated.currentSnapshot().snapshotId();
    for (Snapshot snapshot : added) {
      checkSchema(path, base, generated, snapshot.schemaId());
      builder.addSnapshot(
          snapshot.snapshotId() == currentId && offsets != null
              ? withSummary(snapshot, TieredOffsets.SUMMARY_KEY, offsets)
              : snapshot);
    }
    builder.setBranchSnapshot(currentId, SnapshotRef.MAIN_BRANCH);
    List<Long> expired = new ArrayList<>();
    for (Snapshot snapshot : base.snapshots()) {
      if (!generatedIds.contains(snapshot.snapshotId())) {
        expired.add(snapshot.snapshotId());
      }
    }
    if (!expired.isEmpty()) {
      builder.removeSnapshots(expired);
    }
    return builder.build();
  }

  private static void checkSchema(
      TablePath path, TableMetadata base, TableMetadata generated, Integer schemaId) {
    Schema paimon = schemaId == null ? generated.schema() : generated.schemasById().get(schemaId);
    Schema entry = schemaId == null ? base.schema() : base.schemasById().get(schemaId);
    if (paimon == null || entry == null || !sameColumns(paimon, entry)) {
      throw new TieringException(
          "Cannot point "
              + path
              + " at its Paimon table: Paimon's Iceberg schema "
              + schemaId
              + " ("
              + (paimon == null ? "missing" : paimon.asStruct())
              + ") does not match the table's ("
              + (entry == null ? "missing" : entry.asStruct())
              + ")");
    }
  }

  private static boolean sameColumns(Schema paimon, Schema entry) {
    List<Types.NestedField> columns = entry.columns();
    if (paimon.columns().size() != columns.size()) {
      return false;
    }
    for (Types.NestedField column : columns) {
      Types.NestedField other = paimon.findField(column.fieldId());
      if (other == null
          || !other.name().equals(column.name())
          || !Objects.equals(other.type(), column.type())) {
        return false;
      }
    }
    return true;
  }

  private static Snapshot withSummary(Snapshot snapshot, String key, String value) {
    try {
      JsonNode node = JsonUtil.mapper().readTree(SnapshotParser.toJson(snapshot));
      ((ObjectNode) node.get("summary")).put(key, value);
      return SnapshotParser.fromJson(JsonUtil.mapper().writeValueAsString(node));
    } catch (IOException e) {
      throw new TieringException("Cannot add " + key + " to snapshot " + snapshot.snapshotId(), e);
    }
  }
}
