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
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * <p>For each batch the projector reads only its start: the header, the statistics and the Arrow
 * metadata (a few hundred bytes, 4 KiB in one read). A filter is checked against the statistics and
 * drops the batch only when no row can match; batches written with an older schema are kept, since
 * their statistics are laid out by that schema. A projection keeps the requested columns of the
 * table's current schema that the batch's own schema has (matched by name), in request order: the
 * response carries a new header and new Arrow metadata, then each kept column buffer as a range of
 * the segment file, sent by the socket straight from the page cache. Compressed buffers are kept as
 * they are, since Arrow compresses each buffer on its own.
 */
public final class ArrowBatchProjector implements BatchProjector {
  private static final int HEAD_READ = 4096;
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
    FileChannel channel = slice.channel();
    long[] boundaries = slice.boundaries();
    try {
      for (int i = 0; i < slice.batchCount(); i++) {
        long position = boundaries[i];
        long size = boundaries[i + 1] - position;
        ByteBuffer head = read(channel, position, (int) Math.min(size, HEAD_READ));
        LogBatch header = LogBatch.wrap(head);
        int statisticsLength = head.getInt(LogBatch.HEADER_SIZE);
        int messageStart = PAYLOAD_START + statisticsLength;
        if (statisticsLength < 0 || messageStart + 8L > size) {
          throw new IOException("Batch at " + position + " has a corrupt statistics length");
        }
        if (messageStart + 8 > head.limit()) {
          head = read(channel, position, messageStart + 8);
        }
        int metadataEnd =
            messageStart + 8 + ArrowBatchCodec.metadataLength(head.slice(messageStart, 8));
        if (metadataEnd > size) {
          throw new IOException("Batch at " + position + " has corrupt Arrow metadata");
        }
        if (metadataEnd > head.limit()) {
          head = read(channel, position, metadataEnd);
        }
        if (!batchFilter.predicates().isEmpty()
            && header.schemaId() == table.currentSchemaId()
            && !BatchStatistics.parse(head.slice(PAYLOAD_START, statisticsLength))
                .mightMatch(batchFilter)) {
          continue;
        }
        if (projection.length == 0) {
          out.add(channel, position, size);
        } else {
          project(
              table, header, head, messageStart, metadataEnd, size, names, channel, position, out);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void project(
      StreamTable table,
      LogBatch header,
      ByteBuffer head,
      int messageStart,
      int metadataEnd,
      long batchSize,
      String[] names,
      FileChannel channel,
      long position,
      ResponseBody.Builder out) {
    Schema written = schema(table, header.schemaId());
    int[] columns =
        java.util.Arrays.stream(names)
            .mapToInt(name -> indexOf(written, name))
            .filter(index -> index >= 0)
            .toArray();
    ProjectionPlan plan =
        ArrowBatchCodec.planProjection(
            head.slice(messageStart, metadataEnd - messageStart),
            batchSize - messageStart,
            written,
            columns);
    ByteBuffer metadata = plan.metadata();
    ByteBuffer start = ByteBuffer.allocate(PAYLOAD_START + metadata.remaining());
    start.put(LogBatch.rewrittenHeader(head, 4 + (int) plan.messageSize()));
    start.putInt(0); // no statistics: they describe columns the reader did not ask for
    start.put(metadata);
    out.add(start.flip());
    long messagePosition = position + messageStart;
    for (int b = 0; b < plan.bufferCount(); b++) {
      out.add(channel, messagePosition + plan.sourceOffset(b), plan.length(b));
      if (plan.padding(b) > 0) {
        out.add(ZEROS.duplicate().limit(plan.padding(b)));
      }
    }
  }

  private static ByteBuffer read(FileChannel channel, long position, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new EOFException("Log segment ends inside a batch at " + position);
      }
    }
    return buffer.flip();
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
