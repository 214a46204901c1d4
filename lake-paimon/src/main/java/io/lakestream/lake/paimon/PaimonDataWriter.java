package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.LakeDataWriter;
import io.lakestream.lake.LakeRecords;
import io.lakestream.lake.LogRangeReader;
import io.lakestream.lake.PrimaryKeyChanges;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringPlan;
import io.lakestream.lake.paimon.PaimonIcebergView.Bucket;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.data.Record;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.RowKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paimon's {@link LakeDataWriter}: writes a round's rows through Paimon's {@code StreamTableWrite}
 * and prepares its commit messages under the table's commit user and the round's commit identifier
 * (one above that of the user's newest snapshot), committing nothing.
 *
 * <p>A primary-key table's changes are folded per key ({@link PrimaryKeyChanges}) and each changed
 * key written once, its final row as an upsert or a delete; then every bucket written is fully
 * compacted in the same commit, since Iceberg readers see only a primary-key table's files of the
 * highest level. Buckets whose compaction a crash lost ({@link PaimonIcebergView}) are compacted
 * again, also when there are no new rows.
 */
final class PaimonDataWriter
    implements LakeDataWriter<PaimonLakeTable, PaimonDataWriter.PaimonFiles> {
  // Logs as the tierer, whose logger operators (and the crash tests) turn up.
  private static final Logger LOG = LoggerFactory.getLogger(PaimonTableTiering.class);

  private final Duration readTimeout;
  private final long maxRowsPerRound;

  PaimonDataWriter(Duration readTimeout, long maxRowsPerRound) {
    this.readTimeout = requireNonNull(readTimeout, "readTimeout is null");
    this.maxRowsPerRound = maxRowsPerRound;
  }

  /**
   * A round's written and not yet committed files.
   *
   * @param commitUser the table's Paimon commit user
   * @param identifier the Paimon commit identifier of the round
   * @param messages Paimon's commit messages of the files
   * @param rows log rows the files hold (for a primary-key table, changelog rows folded into them)
   */
  record PaimonFiles(String commitUser, long identifier, List<CommitMessage> messages, long rows)
      implements LakeDataWriter.WrittenFiles {
    PaimonFiles {
      requireNonNull(commitUser, "commitUser is null");
      messages = List.copyOf(messages);
    }

    /** Data files the round wrote (new files and compaction results). */
    @Override
    public int count() {
      int files = 0;
      for (CommitMessage message : messages) {
        CommitMessageImpl impl = (CommitMessageImpl) message;
        files += impl.newFilesIncrement().newFiles().size();
        files += impl.compactIncrement().compactAfter().size();
      }
      return files;
    }
  }

  @Override
  public Optional<PaimonFiles> write(
      PaimonLakeTable opened, TieringPlan plan, Map<TableBucket, Long> reached) {
    TablePath path = opened.path();
    FileStoreTable table = opened.table();
    String commitUser = opened.commitUser();
    long identifier =
        table
                .snapshotManager()
                .latestSnapshotOfUser(commitUser)
                .map(Snapshot::commitIdentifier)
                .orElse(0L)
            + 1;
    io.lakestream.client.Table stream = plan.stream();
    List<LogRange> ranges = plan.ranges();
    // Compactions a crash lost are done again, also when there are no new rows.
    Snapshot latest = table.snapshotManager().latestSnapshot();
    Set<Bucket> uncompacted =
        opened.primaryKey() && latest != null
            ? PaimonIcebergView.uncompactedBuckets(table, latest)
            : Set.of();
    if (ranges.isEmpty() && uncompacted.isEmpty()) {
      return Optional.empty();
    }
    if (!uncompacted.isEmpty()) {
      LOG.info(
          "Compacting {} buckets of {} whose compaction a crash lost: {}",
          uncompacted.size(),
          path,
          uncompacted);
    }

    org.apache.iceberg.Schema schema = opened.entry().schema();
    LakeRecords records = new LakeRecords(schema);
    PaimonRows rows = new PaimonRows(schema);
    StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(commitUser);
    List<CommitMessage> messages;
    long[] read = {0};
    try (StreamTableWrite write = builder.newWrite()) {
      if (opened.primaryKey()) {
        PrimaryKeyChanges changes = new PrimaryKeyChanges(records);
        LogRangeReader.read(
            path,
            stream,
            ranges,
            readTimeout,
            maxRowsPerRound,
            reached,
            (range, batch, first, end) -> changes.add(range.partition(), batch, first, end));
        Set<Bucket> touched = new LinkedHashSet<>(uncompacted);
        for (List<PrimaryKeyChanges.KeyChange> partition : changes.keyChanges().values()) {
          for (PrimaryKeyChanges.KeyChange change : partition) {
            GenericRow row =
                change.finalRow() != null
                    ? rows.row(change.finalRow(), RowKind.INSERT)
                    : rows.row(change.anyRow(), RowKind.DELETE);
            write.write(row);
            touched.add(new Bucket(write.getPartition(row).copy(), write.getBucket(row)));
          }
        }
        for (Bucket bucket : touched) {
          write.compact(bucket.partition(), bucket.bucket(), true);
        }
        read[0] = changes.changes();
      } else {
        LogRangeReader.read(
            path,
            stream,
            ranges,
            readTimeout,
            maxRowsPerRound,
            reached,
            (range, batch, first, end) -> {
              FieldVector[] vectors = records.vectorsOf(batch.root());
              for (int row = first; row < end; row++) {
                Record record = records.record(vectors, row);
                try {
                  write.write(rows.row(record, RowKind.INSERT));
                } catch (RuntimeException | IOException e) {
                  throw e;
                } catch (Exception e) {
                  throw new IOException("Cannot write a row of " + path + " to Paimon", e);
                }
              }
              read[0] += end - first;
            });
      }
      messages = write.prepareCommit(true, identifier);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new TieringException("Cannot write the Paimon files of " + path + ": " + e, e);
    }
    return Optional.of(new PaimonFiles(commitUser, identifier, messages, read[0]));
  }
}
