package io.lakestream.stream;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.batch.BatchPayload;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.store.BatchProjector;
import io.lakestream.store.StreamTable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Projection and filter pushdown for fetched Arrow batches.
 *
 * <p>Projection indexes name columns of the table's current schema; each batch keeps those of them
 * that its own schema has (matched by name), in request order, cut out of the Arrow message buffer
 * by buffer without decoding a value. A filter is checked against a batch's statistics and drops
 * the batch only when no row can match; batches written with an older schema are kept, since their
 * statistics are laid out by that schema.
 */
public final class ArrowBatchProjector implements BatchProjector {
  private final Map<String, Schema> schemas = new ConcurrentHashMap<>();

  @Override
  public ByteBuffer apply(
      StreamTable table, ByteBuffer batches, int[] projection, ByteBuffer filter) {
    Schema current = schema(table, table.currentSchemaId());
    BatchFilter batchFilter;
    try {
      batchFilter =
          filter.hasRemaining() ? BatchFilter.parse(filter.duplicate()) : BatchFilter.MATCH_ALL;
      batchFilter.validate(current);
    } catch (IllegalArgumentException | InvalidBatchFormatException e) {
      throw new RpcException(ErrorCode.INVALID_REQUEST, "Invalid filter: " + e.getMessage());
    }
    List<Field> fields = current.getFields();
    String[] names = new String[projection.length];
    for (int i = 0; i < projection.length; i++) {
      if (projection[i] < 0 || projection[i] >= fields.size()) {
        throw new RpcException(
            ErrorCode.INVALID_REQUEST,
            "Projection column "
                + projection[i]
                + " is not in "
                + table.displayName()
                + " ("
                + fields.size()
                + " columns)");
      }
      names[i] = fields.get(projection[i]).getName();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(batches.remaining());
    ByteBuffer cursor = batches.duplicate();
    while (cursor.remaining() >= LogBatch.HEADER_SIZE) {
      int size = LogBatch.LOG_OVERHEAD + cursor.getInt(cursor.position() + LogBatch.LENGTH);
      LogBatch batch = LogBatch.wrap(cursor.slice(cursor.position(), size));
      cursor.position(cursor.position() + size);
      ByteBuffer payload = batch.payload();
      if (!batchFilter.predicates().isEmpty()
          && batch.schemaId() == table.currentSchemaId()
          && !BatchStatistics.parse(BatchPayload.statistics(payload)).mightMatch(batchFilter)) {
        continue;
      }
      ByteBuffer kept =
          projection.length == 0 ? batch.buffer() : project(table, batch, payload, names);
      write(out, kept);
    }
    return ByteBuffer.wrap(out.toByteArray());
  }

  private ByteBuffer project(
      StreamTable table, LogBatch batch, ByteBuffer payload, String[] names) {
    Schema written = schema(table, batch.schemaId());
    int[] columns =
        java.util.Arrays.stream(names)
            .mapToInt(name -> indexOf(written, name))
            .filter(index -> index >= 0)
            .toArray();
    ByteBuffer message = ArrowBatchCodec.project(BatchPayload.message(payload), written, columns);
    LogBatch projected =
        LogBatch.create(
            batch.recordCount(),
            batch.schemaId(),
            batch.writerId(),
            batch.writerSequence(),
            batch.attributes(),
            BatchPayload.encode(new byte[0], message));
    projected.assign(batch.baseOffset(), batch.commitTimestamp());
    return projected.buffer();
  }

  private static int indexOf(Schema schema, String name) {
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private Schema schema(StreamTable table, int schemaId) {
    return schemas.computeIfAbsent(
        table.tableId() + ":" + schemaId,
        key -> {
          String json = table.arrowSchemas().get(schemaId);
          if (json == null) {
            throw new RpcException(
                ErrorCode.SCHEMA_MISMATCH,
                "Table " + table.displayName() + " has no schema " + schemaId);
          }
          try {
            return Schema.fromJSON(json);
          } catch (IOException e) {
            throw new IllegalStateException("Malformed Arrow schema of " + table.displayName(), e);
          }
        });
  }

  private static void write(ByteArrayOutputStream out, ByteBuffer bytes) {
    if (bytes.hasArray()) {
      out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
    } else {
      byte[] copy = new byte[bytes.remaining()];
      bytes.duplicate().get(copy);
      out.write(copy, 0, copy.length);
    }
  }
}
