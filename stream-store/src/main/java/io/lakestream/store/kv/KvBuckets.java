package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import io.lakestream.client.RowBatch;
import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.ByteSink;
import io.lakestream.client.arrow.Compression;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.batch.BatchPayload;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.store.log.AppendResult;
import io.lakestream.store.log.LogTablet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The primary-key write protocol and its recovery, over a node's {@link KvManager} and the buckets'
 * logs. The bucket's log is the state's write-ahead log:
 *
 * <ol>
 *   <li><b>prepare</b>: under the tablet's lock, a write's rows are merged with the bucket's state
 *       into a changelog, prepared for the log's end offset;
 *   <li><b>changelog</b>: the changelog is appended to the bucket's log as one batch carrying the
 *       request's writer id and sequence (a retried sequence gets its earlier result and changes
 *       nothing); if the append fails, or lands elsewhere than prepared, the prepared state is
 *       aborted;
 *   <li><b>durable apply</b>: once the log has made the changelog durable, the prepared state moves
 *       into RocksDB, where lookups and scans read it.
 * </ol>
 *
 * <p><b>Recovery</b>: a bucket's state is opened once per process; opening replays the durable
 * changelog after the state's applied offset (or the log start, if retention moved it past that),
 * so the state always equals the changelog up to the log's high watermark.
 *
 * <p>Per bucket, preparing and appending happen under the tablet's lock, so the changelog's offsets
 * are the ones the state was prepared for and acknowledgements come in log order. Thread safe.
 */
public final class KvBuckets {
  private final KvManager kvs;
  private final BufferAllocator allocator = new RootAllocator();

  public KvBuckets(KvManager kvs) {
    this.kvs = requireNonNull(kvs, "kvs is null");
  }

  /** Whole-row upserts and deletes as encoded keys and values (null value: a delete). */
  public record EncodedRows(List<byte[]> keys, byte[][] values) {
    public EncodedRows {
      keys = List.copyOf(keys);
      requireNonNull(values, "values is null");
    }
  }

  /**
   * The state of a bucket, opened on first use and then recovered by replaying {@code log}'s
   * durable changelog after its applied offset.
   *
   * @param rowSchemas the row schema (the changelog schema without its change-type column) of each
   *     of the table's schema ids; may throw for an id the table does not have
   * @throws UncheckedIOException if the state cannot be opened or the log cannot be read
   * @throws InvalidBatchFormatException if a changelog batch is damaged; the message names its
   *     offset, bucket, partition and table
   */
  public KvTablet tablet(
      KvTableDefinition table,
      String partition,
      int bucket,
      LogTablet log,
      IntFunction<Schema> rowSchemas) {
    return kvs.tablet(
        table.tableId(),
        partition,
        bucket,
        directory -> {
          KvTablet tablet =
              KvTablet.open(
                  directory,
                  KvSchema.create(table.schemas(), table.currentSchemaId(), table.bucketKey()),
                  MergeEngines.create(
                      table.schemas().get(table.currentSchemaId()), table.properties()),
                  kvs.config(),
                  kvs.clock(),
                  kvs.memory(),
                  kvs.rowCache());
          try {
            replay(table, partition, bucket, tablet, log, rowSchemas);
          } catch (IOException | RuntimeException e) {
            tablet.close();
            throw e;
          }
          return tablet;
        });
  }

  /** Applies the durable changelog after the tablet's applied offset. */
  private void replay(
      KvTableDefinition table,
      String partition,
      int bucket,
      KvTablet tablet,
      LogTablet log,
      IntFunction<Schema> rowSchemas)
      throws IOException {
    long offset = Math.max(tablet.appliedOffset(), log.logStartOffset());
    Schema current = rowSchemas.apply(table.currentSchemaId());
    while (offset < log.highWatermark()) {
      ByteBuffer bytes = log.read(offset, 8 << 20);
      if (!bytes.hasRemaining()) {
        break;
      }
      while (bytes.remaining() >= LogBatch.HEADER_SIZE) {
        int size = LogBatch.LOG_OVERHEAD + bytes.getInt(bytes.position() + LogBatch.LENGTH);
        LogBatch batch = LogBatch.wrap(bytes.slice(bytes.position(), size));
        bytes.position(bytes.position() + size);
        if (batch.nextOffset() <= offset || batch.baseOffset() >= log.highWatermark()) {
          continue;
        }
        Schema written = ArrowValues.withChangeType(rowSchemas.apply(batch.schemaId()));
        try (VectorSchemaRoot root = decodeStored(table, partition, bucket, batch, written)) {
          int[] columns = currentColumns(current, written);
          int typeColumn = written.getFields().size() - 1;
          List<ChangeType> types = new ArrayList<>(root.getRowCount());
          List<Object[]> rows = new ArrayList<>(root.getRowCount());
          for (int row = 0; row < root.getRowCount(); row++) {
            Object[] values = new Object[columns.length];
            for (int i = 0; i < columns.length; i++) {
              values[i] =
                  columns[i] < 0
                      ? null
                      : ArrowValues.get(root.getFieldVectors().get(columns[i]), row);
            }
            types.add(
                ChangeType.fromCode(
                    (Byte) ArrowValues.get(root.getFieldVectors().get(typeColumn), row)));
            rows.add(values);
          }
          tablet.replay(batch.baseOffset(), types, rows);
        }
        offset = batch.nextOffset();
      }
    }
  }

  /** A changelog batch read back from the log; damage (on disk) is named by its offset. */
  private VectorSchemaRoot decodeStored(
      KvTableDefinition table, String partition, int bucket, LogBatch batch, Schema written) {
    try {
      if (!batch.isValid()) {
        throw new InvalidBatchFormatException("it fails its CRC-32C check");
      }
      return ArrowBatchCodec.decode(BatchPayload.message(batch.payload()), written, allocator);
    } catch (InvalidBatchFormatException | IllegalArgumentException e) {
      throw new InvalidBatchFormatException(
          "Corrupt changelog batch at offset "
              + batch.baseOffset()
              + " of bucket "
              + bucket
              + (partition.isEmpty() ? "" : " of partition " + partition)
              + " of "
              + table.displayName()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** Per column of the current schema, its position in a batch's schema (by name), or -1. */
  private static int[] currentColumns(Schema current, Schema written) {
    int[] columns = new int[current.getFields().size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = -1;
      String name = current.getFields().get(i).getName();
      for (int j = 0; j < written.getFields().size() - 1; j++) {
        if (written.getFields().get(j).getName().equals(name)) {
          columns[i] = j;
        }
      }
    }
    return columns;
  }

  /**
   * Writes one batch of changes to a bucket by the protocol above: exactly one of {@code mutations}
   * and {@code encoded} is non-null.
   *
   * @param input the request's batch: its schema id, writer id, sequence and compression are the
   *     changelog's
   * @param schema the row schema of {@code input}
   * @return the append's result, completing once the changelog is durable and applied to the state;
   *     it fails with an {@link UncheckedIOException} naming the step when either fails
   * @throws DeleteNotSupportedException if the merge engine refuses a delete (nothing is written)
   * @throws InvalidMutationException if the merge engine refuses a row (nothing is written)
   * @throws io.lakestream.store.log.InvalidBatchException if the log refuses the writer's sequence
   * @throws IOException if the state or the log cannot be written
   */
  public CompletableFuture<AppendResult> write(
      KvTablet kv,
      LogTablet log,
      LogBatch input,
      Schema schema,
      List<Mutation> mutations,
      EncodedRows encoded)
      throws IOException {
    AppendResult result;
    synchronized (kv) {
      AppendResult earlier = log.earlierAppendOf(input.writerId(), input.writerSequence());
      if (earlier != null) {
        result = earlier;
      } else {
        long base = log.logEndOffset();
        List<KvChange> changes =
            encoded == null
                ? kv.prepare(base, mutations)
                : kv.prepareEncoded(base, encoded.keys(), encoded.values());
        if (changes.isEmpty()) {
          result = log.appendNothing(input.writerId(), input.writerSequence());
        } else {
          try {
            result = log.append(changelog(schema, kv, changes, input));
          } catch (IOException | RuntimeException e) {
            kv.abort(base);
            throw e;
          }
          if (result.baseOffset() != base) {
            kv.abort(base);
            throw new IllegalStateException(
                "Changelog landed at " + result.baseOffset() + ", prepared for " + base);
          }
        }
      }
    }
    AppendResult appended = result;
    return appended
        .durable()
        .handle(
            (ignored, error) -> {
              if (error != null) {
                throw new CompletionException(
                    new UncheckedIOException(
                        "Cannot make the changelog durable: " + error.getMessage(),
                        new IOException(error)));
              }
              try {
                kv.markDurable(appended.lastOffset() + 1);
              } catch (IOException e) {
                throw new CompletionException(
                    new UncheckedIOException(
                        "Cannot apply the changelog to the state: " + e.getMessage(), e));
              }
              return appended;
            });
  }

  /** The changelog as one log batch with the request's writer id and sequence. */
  private LogBatch changelog(Schema schema, KvTablet kv, List<KvChange> changes, LogBatch input) {
    Schema changelogSchema = ArrowValues.withChangeType(schema);
    Compression compression = Compression.values()[input.attributes() & 0x7];
    try (VectorSchemaRoot root = VectorSchemaRoot.create(changelogSchema, allocator)) {
      if (!writeEncoded(kv.rowCodec(), changes, root)) {
        RowBatch rows = new RowBatch(changelogSchema, changes.size());
        int columns = schema.getFields().size();
        for (KvChange change : changes) {
          Object[] values = new Object[columns + 1];
          System.arraycopy(change.row(), 0, values, 0, columns);
          values[columns] = change.type().code();
          rows.add(values);
        }
        rows.writeTo(root);
      }
      byte[] statistics = BatchStatistics.compute(root).serialize();
      ByteSink out =
          new ByteSink(
              LogBatch.HEADER_SIZE + 4 + statistics.length + ArrowBatchCodec.estimatedSize(root));
      out.skip(LogBatch.HEADER_SIZE);
      out.writeInt(statistics.length);
      out.write(statistics, 0, statistics.length);
      ArrowBatchCodec.encode(root, compression, out);
      return LogBatch.createInPlace(
          out.buffer(),
          changes.size(),
          input.schemaId(),
          input.writerId(),
          input.writerSequence(),
          input.attributes());
    }
  }

  /**
   * Fills an empty changelog root straight from the changes' encoded rows, copying strings as
   * bytes; false (root untouched) if some change has no encoded row or the schema has a column type
   * the direct path does not write.
   */
  private static boolean writeEncoded(
      RowCodec codec, List<KvChange> changes, VectorSchemaRoot root) {
    if (!codec.writesArrow()) {
      return false;
    }
    for (KvChange change : changes) {
      if (change.value() == null || !codec.isCurrent(change.value())) {
        return false;
      }
    }
    int count = changes.size();
    List<FieldVector> vectors = root.getFieldVectors();
    List<byte[]> values = new ArrayList<>(count);
    for (KvChange change : changes) {
      values.add(change.value());
    }
    codec.writeTo(values, vectors);
    TinyIntVector types = (TinyIntVector) vectors.get(vectors.size() - 1);
    types.allocateNew(count);
    for (int row = 0; row < count; row++) {
      types.set(row, changes.get(row).type().code());
    }
    types.setValueCount(count);
    root.setRowCount(count);
    return true;
  }

  /** Bytes of Arrow memory the buckets' changelog and batch decoding hold now. */
  public long arrowAllocatedBytes() {
    return allocator.getAllocatedMemory();
  }
}
