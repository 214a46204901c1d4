package io.lakestream.flink.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.iceberg.flink.TableLoader;

/**
 * The lake part of a union read: a source reading one lake snapshot, the snapshot whose tiered
 * offsets the log part starts from. The read is planned when the job is; if another engine expired
 * that snapshot before the job starts, the job fails at its start naming the table and the
 * snapshot, rather than with the lake library's bare "Cannot find snapshot".
 */
final class LakeSnapshotSource<T, S extends SourceSplit, E> implements Source<T, S, E> {
  private static final long serialVersionUID = 1L;

  private final Source<T, S, E> files;
  private final TableLoader loader;
  private final String table;
  private final long snapshotId;

  LakeSnapshotSource(Source<T, S, E> files, TableLoader loader, String table, long snapshotId) {
    this.files = files;
    this.loader = loader;
    this.table = table;
    this.snapshotId = snapshotId;
  }

  @Override
  public Boundedness getBoundedness() {
    return files.getBoundedness();
  }

  @Override
  public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context)
      throws Exception {
    requireSnapshot();
    return files.createEnumerator(context);
  }

  @Override
  public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E checkpoint)
      throws Exception {
    return files.restoreEnumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<S> getSplitSerializer() {
    return files.getSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
    return files.getEnumeratorCheckpointSerializer();
  }

  @Override
  public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
    return files.createReader(context);
  }

  private void requireSnapshot() {
    try (TableLoader opened = loader.clone()) {
      opened.open();
      if (opened.loadTable().snapshot(snapshotId) == null) {
        throw new IllegalStateException(
            "Lake snapshot "
                + snapshotId
                + " of "
                + table
                + ", on which this union read was planned, no longer exists: it was expired after"
                + " the query was planned. Run the query again to read the current snapshot, or"
                + " keep snapshots longer than a job takes to start.");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Closing the lake table loader of " + table, e);
    }
  }
}
