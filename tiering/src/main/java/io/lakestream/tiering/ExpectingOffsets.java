package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Table operations that commit only on top of a state holding the offsets a round started from.
 *
 * <p>Iceberg's snapshot producers retry a commit that lost a compare-and-swap by re-applying it to
 * the new current metadata. For an append of a log range that would commit the range a second time
 * when the winner tiered it too. This wrapper checks every attempt's base: if its offsets are not
 * the expected ones it throws {@link TieringConflictException}, which Iceberg does not retry. A
 * base that changed in other ways (a user's compaction, a property change) but holds the same
 * offsets is fine to append to. The atomicity of the final check against the catalog's current
 * state comes from the delegate's compare-and-swap commit.
 *
 * <p>A commit whose new snapshot records offsets also moves the tag {@value TieredOffsets#TAG} to
 * that snapshot, in the same metadata change, so that snapshot expiry by any engine keeps it
 * ({@link TieredOffsets#tieredSnapshot}).
 */
final class ExpectingOffsets implements TableOperations {
  private final TableOperations delegate;
  private final TieredOffsets expected;
  private final TablePath table;
  private volatile TableMetadata committed;

  ExpectingOffsets(TableOperations delegate, TieredOffsets expected, TablePath table) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.expected = requireNonNull(expected, "expected is null");
    this.table = requireNonNull(table, "table is null");
  }

  @Override
  public TableMetadata current() {
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    return delegate.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    TieredOffsets found = TieredOffsets.committedIn(base);
    if (!found.equals(expected)) {
      throw new TieringConflictException(
          "Table " + table + " holds offsets " + found + ", the round started from " + expected);
    }
    TableMetadata tagged = tagged(metadata);
    delegate.commit(base, tagged);
    committed = tagged;
  }

  /**
   * The metadata with {@value TieredOffsets#TAG} on its current snapshot, when that snapshot
   * records offsets and the tag is elsewhere. {@code buildFrom} keeps the changes that made the
   * metadata, so a REST catalog receives the snapshot and the tag in one update.
   */
  private static TableMetadata tagged(TableMetadata metadata) {
    Snapshot snapshot = metadata.currentSnapshot();
    if (snapshot == null
        || snapshot.summary() == null
        || !snapshot.summary().containsKey(TieredOffsets.SUMMARY_KEY)) {
      return metadata;
    }
    SnapshotRef tag = metadata.ref(TieredOffsets.TAG);
    if (tag != null && tag.isTag() && tag.snapshotId() == snapshot.snapshotId()) {
      return metadata;
    }
    return TableMetadata.buildFrom(metadata)
        .setRef(TieredOffsets.TAG, SnapshotRef.tagBuilder(snapshot.snapshotId()).build())
        .build();
  }

  /** The metadata this wrapper committed, or null. */
  TableMetadata committed() {
    return committed;
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public EncryptionManager encryption() {
    return delegate.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return delegate.locationProvider();
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    return delegate.temp(uncommittedMetadata);
  }

  @Override
  public long newSnapshotId() {
    return delegate.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return delegate.requireStrictCleanup();
  }
}
