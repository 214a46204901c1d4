package io.lakestream.tiering;

import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every compaction of a tiered table does: write the rows it reads into new data files, then
 * commit a rewrite that repeats the table's tiered offsets, through the offsets guard, so that a
 * round another tierer commits meanwhile makes the rewrite fail rather than be re-applied under
 * offsets that are no longer the table's. New files are deleted again when writing or committing
 * certainly failed.
 */
final class CompactionRewrite {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionRewrite.class);

  /** Opens one run of the rows to rewrite. */
  interface Rows {
    CloseableIterable<Record> open();
  }

  /** The data files written and the rows in them. */
  record Written(List<DataFile> files, long rows) {}

  private CompactionRewrite() {}

  /** Writes every row of {@code sources}, in order, into new data files of {@code table}. */
  static Written write(TablePath path, Table table, long attempt, List<Rows> sources) {
    FanoutDataWriter<Record> writer = LakeFiles.dataWriter(table, attempt);
    PartitionKey partitionKey = new PartitionKey(table.spec(), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    long rows = 0;
    boolean written = false;
    try {
      for (Rows source : sources) {
        try (CloseableIterable<Record> records = source.open()) {
          for (Record record : records) {
            partitionKey.partition(wrapper.wrap(record));
            writer.write(record, table.spec(), partitionKey);
            rows++;
          }
        }
      }
      writer.close();
      written = true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot rewrite the data files of " + path, e);
    } finally {
      if (!written) {
        try {
          writer.close();
        } catch (IOException | RuntimeException e) {
          LOG.debug("Cannot close the writer of a failed compaction of {}", path, e);
        }
        LakeFiles.deleteQuietly(table.io(), writer.result().dataFiles());
      }
    }
    return new Written(writer.result().dataFiles(), rows);
  }

  /**
   * Commits the rewrite {@code files} describes, validated from {@code snapshot} and carrying
   * {@code offsets} (the offsets committed when the compaction started); deletes {@code newData}
   * unless it may be in the table.
   *
   * @throws org.apache.iceberg.exceptions.ValidationException when a concurrent commit conflicts
   * @throws TieringConflictException when another tierer committed new offsets meanwhile
   */
  static void commit(
      TablePath path,
      Table table,
      Snapshot snapshot,
      TieredOffsets offsets,
      List<DataFile> newData,
      UnaryOperator<RewriteFiles> files) {
    TableOperations operations = ((HasTableOperations) table).operations();
    boolean committed = false;
    try {
      RewriteFiles rewrite =
          new BaseTable(new ExpectingOffsets(operations, offsets, path), table.name())
              .newRewrite()
              .set(TieredOffsets.SUMMARY_KEY, offsets.toJson())
              .validateFromSnapshot(snapshot.snapshotId());
      files.apply(rewrite).commit();
      committed = true;
    } catch (CommitStateUnknownException e) {
      committed = true; // the files may be in the table: keep them
      throw e;
    } finally {
      if (!committed) {
        LakeFiles.deleteQuietly(table.io(), newData);
      }
    }
  }
}
