package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.RowBatch;
import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.Compression;
import io.lakestream.client.batch.BatchPayload;
import io.lakestream.client.batch.LogBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Log batches as the Java client writes them (statistics, then an Arrow record batch message), for
 * tests that send batches over the raw RPC: the server checks every batch's rows against the
 * table's schema, so a test batch must be a real one.
 */
public final class TestBatches {
  private TestBatches() {}

  /** The payload of a batch of {@code rows} (values as {@code AppendWriter.append} takes them). */
  public static ByteBuffer payload(Schema schema, List<Object[]> rows, Compression compression) {
    return payloadClaiming(schema, rows, rows, compression);
  }

  /**
   * The payload of a batch of {@code rows} whose statistics are those of {@code claimed} (as many
   * rows): a client that lies about its batch when the two differ.
   */
  public static ByteBuffer payloadClaiming(
      Schema schema, List<Object[]> rows, List<Object[]> claimed, Compression compression) {
    requireNonNull(schema, "schema is null");
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        VectorSchemaRoot claimedRoot = VectorSchemaRoot.create(schema, allocator)) {
      fill(schema, rows, root);
      fill(schema, claimed, claimedRoot);
      return BatchPayload.encode(
          BatchStatistics.compute(claimedRoot).serialize(),
          ArrowBatchCodec.encode(root, compression));
    }
  }

  private static void fill(Schema schema, List<Object[]> rows, VectorSchemaRoot root) {
    RowBatch batch = new RowBatch(schema, Math.max(1, rows.size()));
    rows.forEach(batch::add);
    batch.writeTo(root);
  }

  /** A whole log batch of {@code rows}, uncompressed. */
  public static LogBatch batch(
      Schema schema, int schemaId, List<Object[]> rows, long writerId, int sequence) {
    return batch(schema, schemaId, rows, writerId, sequence, Compression.NONE);
  }

  /** A whole log batch of {@code rows}, its header's codec set as the client sets it. */
  public static LogBatch batch(
      Schema schema,
      int schemaId,
      List<Object[]> rows,
      long writerId,
      int sequence,
      Compression compression) {
    return LogBatch.create(
        rows.size(),
        schemaId,
        writerId,
        sequence,
        (short) compression.ordinal(),
        payload(schema, rows, compression));
  }

  /** The rows of a stored or fetched batch, as lists of Java values (strings as strings). */
  public static List<List<Object>> rows(LogBatch batch, Schema schema) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root =
            ArrowBatchCodec.decode(BatchPayload.message(batch.payload()), schema, allocator)) {
      List<List<Object>> rows = new ArrayList<>();
      for (int row = 0; row < root.getRowCount(); row++) {
        List<Object> values = new ArrayList<>();
        for (var vector : root.getFieldVectors()) {
          Object value = vector.getObject(row);
          values.add(value == null ? null : value instanceof Number ? value : value.toString());
        }
        rows.add(values);
      }
      return rows;
    }
  }
}
