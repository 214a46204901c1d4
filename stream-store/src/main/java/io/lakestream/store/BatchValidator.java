package io.lakestream.store;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.ColumnStats;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.batch.BatchPayload;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.store.log.InvalidBatchException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The complete check of a batch a client sends (PRODUCE, PUT_KV) before anything of it is stored,
 * so that no client, buggy or hostile, can store a batch that a reader, a SQL query or tiering
 * fails on later.
 *
 * <p>A batch passes when:
 *
 * <ul>
 *   <li>its header is whole: the length field matches the bytes that arrived, the magic is known,
 *       the CRC-32C the writer computed matches the bytes, the record count is positive, the
 *       attributes name a known codec and no unknown flag, and the writer id and sequence are in
 *       range;
 *   <li>its payload is statistics followed by exactly one Arrow IPC record batch message of the
 *       table's schema for the batch's schema id: the field nodes and buffers the schema needs,
 *       every buffer inside the body, every compressed buffer decompressible, every value's offsets
 *       inside its data (Arrow's full validation), and as many rows as the header says;
 *   <li>its statistics parse, describe as many rows and columns as the batch has, and are true of
 *       the rows (same null counts, bounds that enclose the values), so that a filter never skips a
 *       batch holding a matching row.
 * </ul>
 *
 * Anything else is refused with an {@link InvalidBatchException} (wire code {@code INVALID_BATCH},
 * see {@link RpcErrors}) and a message naming the table and the problem. The check decodes the
 * batch once into {@code allocator}; the caller gets the decoded rows and owns them. Thread-safe:
 * it keeps no state.
 */
final class BatchValidator {
  private static final int KNOWN_ATTRIBUTES = 0x7;
  private static final int CODECS = 3;

  /** How much larger than the batch its decoded buffers may be (decompression included). */
  private static final long MAX_EXPANSION = 64;

  /** The most memory one batch may decode to, whatever its size. */
  private static final long MAX_DECODED_BYTES = 512L << 20;

  private BatchValidator() {}

  /**
   * Checks the header of the batch that fills {@code bytes} (a PRODUCE or PUT_KV request's batch
   * field), including its CRC.
   *
   * @param maxBatchBytes the largest batch the log takes ({@code log.max-batch-bytes})
   * @return the batch, over {@code bytes}
   * @throws InvalidBatchException naming the problem
   */
  static LogBatch checkHeader(StreamTable table, ByteBuffer bytes, int maxBatchBytes) {
    requireNonNull(table, "table is null");
    if (bytes.remaining() > maxBatchBytes) {
      throw invalid(
          table, "it has " + bytes.remaining() + " bytes, more than the limit of " + maxBatchBytes);
    }
    if (bytes.remaining() < LogBatch.HEADER_SIZE + 4) {
      throw invalid(
          table,
          "it has "
              + bytes.remaining()
              + " bytes, fewer than its header and statistics length ("
              + (LogBatch.HEADER_SIZE + 4)
              + ")");
    }
    LogBatch batch = LogBatch.wrap(bytes.slice());
    int length = bytes.getInt(bytes.position() + LogBatch.LENGTH);
    if ((long) length + LogBatch.LOG_OVERHEAD != bytes.remaining()) {
      throw invalid(
          table,
          "its length field says "
              + ((long) length + LogBatch.LOG_OVERHEAD)
              + " bytes but "
              + bytes.remaining()
              + " arrived");
    }
    if (batch.magic() != LogBatch.MAGIC) {
      throw invalid(table, "it has magic " + batch.magic() + ", not " + LogBatch.MAGIC);
    }
    if (!batch.crcMatches()) {
      int computed = batch.computeCrc();
      throw invalid(
          table,
          String.format(
              "its CRC-32C 0x%08X does not match its bytes (0x%08X): corrupted in transit or by"
                  + " the writer",
              batch.storedCrc(), computed));
    }
    if (batch.recordCount() <= 0) {
      throw invalid(table, "it declares " + batch.recordCount() + " records");
    }
    int attributes = batch.attributes() & 0xFFFF;
    if ((attributes & ~KNOWN_ATTRIBUTES) != 0 || (attributes & KNOWN_ATTRIBUTES) >= CODECS) {
      throw invalid(
          table,
          String.format(
              "it has attributes 0x%04X: only a compression codec 0 to %d is known",
              attributes, CODECS - 1));
    }
    if (batch.writerId() < LogBatch.NO_WRITER) {
      throw invalid(table, "it has writer id " + batch.writerId());
    }
    if (batch.writerId() != LogBatch.NO_WRITER && batch.writerSequence() < 0) {
      throw invalid(
          table,
          "writer "
              + batch.writerId()
              + " gave it the negative sequence "
              + batch.writerSequence());
    }
    return batch;
  }

  /**
   * Checks the payload of a batch whose header passed {@link #checkHeader} against {@code schema},
   * the Arrow schema of the batch's schema id, and returns its rows.
   *
   * @param statisticsRequired whether the batch must carry statistics (log appends, which filters
   *     read); without, an empty statistics section is allowed, and any present is checked
   * @return the batch's rows, owned by the caller, who must close them
   * @throws io.lakestream.client.rpc.RpcException with {@code STORAGE_ERROR} if there is no memory
   *     to decode the batch
   * @throws InvalidBatchException naming the problem
   */
  static VectorSchemaRoot checkPayload(
      StreamTable table,
      LogBatch batch,
      Schema schema,
      boolean statisticsRequired,
      BufferAllocator allocator) {
    ByteBuffer payload = batch.payload();
    ByteBuffer statisticsBytes;
    ByteBuffer message;
    try {
      statisticsBytes = BatchPayload.statistics(payload);
      message = BatchPayload.message(payload);
    } catch (IllegalArgumentException e) {
      throw invalid(table, e.getMessage());
    }
    BatchStatistics statistics = null;
    if (statisticsBytes.hasRemaining() || statisticsRequired) {
      try {
        statistics = BatchStatistics.parse(statisticsBytes);
      } catch (InvalidBatchFormatException | IllegalArgumentException e) {
        throw invalid(table, "its statistics are unreadable: " + e.getMessage());
      }
      if (statistics.rowCount() != batch.recordCount()
          || statistics.columns().size() != schema.getFields().size()) {
        throw invalid(
            table,
            "its statistics describe "
                + statistics.rowCount()
                + " rows of "
                + statistics.columns().size()
                + " columns, but it has "
                + batch.recordCount()
                + " rows of schema "
                + batch.schemaId()
                + " with "
                + schema.getFields().size()
                + " columns");
      }
    }
    VectorSchemaRoot root;
    try {
      root =
          ArrowBatchCodec.decodeChecked(
              message,
              schema,
              allocator,
              Math.min(MAX_DECODED_BYTES, MAX_EXPANSION * batch.sizeInBytes()));
    } catch (InvalidBatchFormatException | IllegalArgumentException e) {
      throw invalid(table, "its rows are unreadable: " + e.getMessage());
    } catch (OutOfMemoryException e) {
      throw RpcErrors.of(e, "No memory to check a batch for " + table.displayName());
    }
    try {
      if (root.getRowCount() != batch.recordCount()) {
        throw invalid(
            table,
            "its header says "
                + batch.recordCount()
                + " records but its Arrow rows are "
                + root.getRowCount());
      }
      if (statistics != null) {
        checkStatistics(table, statistics, root);
      }
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  private static void checkStatistics(
      StreamTable table, BatchStatistics claimed, VectorSchemaRoot root) {
    BatchStatistics actual;
    try {
      actual = BatchStatistics.compute(root);
    } catch (RuntimeException e) {
      throw invalid(table, "its rows have no statistics: " + e.getMessage());
    }
    List<ColumnStats> columns = claimed.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (!columns.get(i).covers(actual.column(i))) {
        throw invalid(
            table,
            "its statistics of column "
                + root.getSchema().getFields().get(i).getName()
                + " ("
                + columns.get(i)
                + ") are not true of its values ("
                + actual.column(i)
                + ")");
      }
    }
  }

  private static InvalidBatchException invalid(StreamTable table, String problem) {
    return new InvalidBatchException("Refused a batch for " + table.displayName() + ": " + problem);
  }
}
