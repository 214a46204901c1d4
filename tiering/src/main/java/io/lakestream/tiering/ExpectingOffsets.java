package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
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
    delegate.commit(base, metadata);
    committed = metadata;
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
