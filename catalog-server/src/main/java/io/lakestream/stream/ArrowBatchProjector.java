package io.lakestream.stream;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.arrow.ProjectionPlan;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.store.BatchProjector;
import io.lakestream.store.StreamTable;
import io.lakestream.store.log.LogSlice;
import io.lakestream.store.rpc.ResponseBody;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Projection and filter pushdown for fetched Arrow batches, without reading their rows.
 *
 * <p>The stored batches are mapped into memory, so for each batch only its start is touched: the
 * header, the statistics and the Arrow metadata. A filter is checked against the statistics and
 * drops the batch only when no row can match; batches written with an older schema are kept, since
 * their statistics are laid out by that schema. A projection keeps the requested columns of the
 * table's current schema that the batch's own schema has (matched by name), in request order: the
 * response carries a new header and new Arrow metadata, then each kept column buffer as a view of
 * the mapped file, gathered by the socket write straight from the page cache. Compressed buffers
 * are kept as they are, since Arrow compresses each buffer on its own.
 */
public final class ArrowBatchProjector implements BatchProjector {
  private static final int PAYLOAD_START = LogBatch.HEADER_SIZE + 4;
  private static final ByteBuffer ZEROS = ByteBuffer.allocate(8);

  private final Map<String, Schema> schemas = new ConcurrentHashMap<>();

  @Override
  public void apply(
      StreamTable table,
      LogSlice slice,
      int[] projection,
      ByteBuffer filter,
      ResponseBody.Builder out) {
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
    // Map the stored batches: heads and kept buffers are then views of the page cache, and the
    // socket write gathers them without a read call per buffer. Unmapped once the response is sent.
    Arena arena = Arena.ofShared();
    out.onRelease(arena::close);
    ByteBuffer mapped;
    try {
      mapped =
          slice
              .channel()
              .map(FileChannel.MapMode.READ_ONLY, slice.start(), slice.size(), arena)
              .asByteBuffer();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long[] boundaries = slice.boundaries();
    for (int i = 0; i < slice.batchCount(); i++) {
      int position = (int) (boundaries[i] - slice.start());
      int size = (int) (boundaries[i + 1] - boundaries[i]);
      ByteBuffer batch = mapped.slice(position, size).order(ByteOrder.BIG_ENDIAN);
      LogBatch header = LogBatch.wrap(batch);
      int statisticsLength = batch.getInt(LogBatch.HEADER_SIZE);
      int messageStart = PAYLOAD_START + statisticsLength;
      if (statisticsLength < 0 || messageStart + 8L > size) {
        throw new UncheckedIOException(
            new IOException("Batch at " + boundaries[i] + " has a corrupt statistics length"));
      }
      long metadataEnd =
          messageStart + 8L + ArrowBatchCodec.metadataLength(batch.slice(messageStart, 8));
      if (metadataEnd > size) {
        throw new UncheckedIOException(
            new IOException("Batch at " + boundaries[i] + " has corrupt Arrow metadata"));
      }
      if (!batchFilter.predicates().isEmpty()
          && header.schemaId() == table.currentSchemaId()
          && !BatchStatistics.parse(batch.slice(PAYLOAD_START, statisticsLength))
              .mightMatch(batchFilter)) {
        continue;
      }
      if (projection.length == 0) {
        out.add(batch);
      } else {
        project(table, header, batch, messageStart, (int) metadataEnd, names, out);
      }
    }
  }

  private void project(
      StreamTable table,
      LogBatch header,
      ByteBuffer batch,
      int messageStart,
      int metadataEnd,
      String[] names,
      ResponseBody.Builder out) {
    Schema written = schema(table, header.schemaId());
    int[] columns =
        java.util.Arrays.stream(names)
            .mapToInt(name -> indexOf(written, name))
            .filter(index -> index >= 0)
            .toArray();
    ProjectionPlan plan =
        ArrowBatchCodec.planProjection(
            batch.slice(messageStart, metadataEnd - messageStart),
            batch.limit() - messageStart,
            written,
            columns);
    ByteBuffer metadata = plan.metadata();
    ByteBuffer start = ByteBuffer.allocate(PAYLOAD_START + metadata.remaining());
    start.put(LogBatch.rewrittenHeader(batch, 4 + (int) plan.messageSize()));
    start.putInt(0); // no statistics: they describe columns the reader did not ask for
    start.put(metadata);
    out.add(start.flip());
    for (int b = 0; b < plan.bufferCount(); b++) {
      out.add(batch.slice(messageStart + (int) plan.sourceOffset(b), (int) plan.length(b)));
      if (plan.padding(b) > 0) {
        out.add(ZEROS.duplicate().limit(plan.padding(b)));
      }
    }
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
}
