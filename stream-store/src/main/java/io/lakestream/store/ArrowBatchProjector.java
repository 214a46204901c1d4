package io.lakestream.store;

import io.lakestream.client.arrow.ArrowBatchCodec;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.arrow.ProjectionPlan;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.store.log.LogSlice;
import io.lakestream.store.rpc.ResponseBody;
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
 * <p>Only the start of each stored batch is read: the header, the statistics and the Arrow
 * metadata. A filter is checked against the statistics and drops the batch only when no row can
 * match; batches written with an older schema are kept, since their statistics are laid out by that
 * schema. A projection keeps the requested columns of the table's current schema that the batch's
 * own schema has (matched by name), in request order: the response carries a new header and new
 * Arrow metadata, then the kept column buffers as ranges of the segment file, which the socket
 * write sends from the page cache without copying them into the process (a column's buffers, which
 * lie one after another in the file, go as one range). Compressed buffers are kept as they are,
 * since Arrow compresses each buffer on its own.
 */
public final class ArrowBatchProjector implements BatchProjector {
  private static final int PAYLOAD_START = LogBatch.HEADER_SIZE + 4;
  private static final ByteBuffer ZEROS = ByteBuffer.allocate(8);
  // A batch's head is read with one call when it fits in this much (W1's 20 columns need ~2 KiB).
  private static final int HEAD_BYTES = 4096;

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
      throw new InvalidRequestException("Invalid filter: " + e.getMessage());
    }
    List<Field> fields = current.getFields();
    String[] names = new String[projection.length];
    for (int i = 0; i < projection.length; i++) {
      if (projection[i] < 0 || projection[i] >= fields.size()) {
        throw new InvalidRequestException(
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
    // Each batch's head (header, statistics, Arrow metadata) is read; what is sent of its body goes
    // as ranges of the segment file, which the socket write takes from the page cache (sendfile).
    FileChannel channel = slice.channel();
    ByteBuffer head = ByteBuffer.allocate(HEAD_BYTES);
    long[] boundaries = slice.boundaries();
    for (int i = 0; i < slice.batchCount(); i++) {
      long position = boundaries[i];
      int size = (int) (boundaries[i + 1] - boundaries[i]);
      if (size < PAYLOAD_START) {
        throw new InvalidBatchFormatException(
            "The stored batch at segment position "
                + position
                + " has "
                + size
                + " bytes, fewer than its header");
      }
      head = readHead(channel, position, Math.min(size, HEAD_BYTES), head);
      try {
        head = applyOne(table, batchFilter, names, channel, position, size, head, out);
      } catch (InvalidBatchFormatException | IllegalArgumentException e) {
        throw new InvalidBatchFormatException(
            "The stored batch at offset "
                + head.getLong(LogBatch.BASE_OFFSET)
                + " (segment position "
                + position
                + ") is corrupt: "
                + e.getMessage(),
            e);
      }
    }
  }

  /**
   * Filters and projects one stored batch whose first bytes are in {@code head}.
   *
   * @return the head buffer, possibly a larger one, for the next batch to reuse
   */
  private ByteBuffer applyOne(
      StreamTable table,
      BatchFilter batchFilter,
      String[] names,
      FileChannel channel,
      long position,
      int size,
      ByteBuffer head,
      ResponseBody.Builder out) {
    int statisticsLength = head.getInt(LogBatch.HEADER_SIZE);
    int messageStart = PAYLOAD_START + statisticsLength;
    if (statisticsLength < 0 || messageStart + 8L > size) {
      throw new InvalidBatchFormatException(
          "its statistics length " + statisticsLength + " does not fit its " + size + " bytes");
    }
    if (messageStart + 8 > head.limit()) {
      head = readHead(channel, position, messageStart + 8, head);
    }
    long metadataEnd =
        messageStart + 8L + ArrowBatchCodec.metadataLength(head.slice(messageStart, 8));
    if (metadataEnd > size || metadataEnd < messageStart + 8L) {
      throw new InvalidBatchFormatException(
          "its Arrow metadata ends at byte " + metadataEnd + " of " + size);
    }
    if (metadataEnd > head.limit()) {
      head = readHead(channel, position, (int) metadataEnd, head);
    }
    LogBatch header = LogBatch.wrap(head);
    if (!batchFilter.predicates().isEmpty()
        && header.schemaId() == table.currentSchemaId()
        && !BatchStatistics.parse(head.slice(PAYLOAD_START, statisticsLength))
            .mightMatch(batchFilter)) {
      return head;
    }
    if (names.length == 0) {
      out.add(channel, position, size);
    } else {
      project(
          table,
          header,
          head,
          channel,
          position,
          size,
          messageStart,
          (int) metadataEnd,
          names,
          out);
    }
    return head;
  }

  /**
   * Reads the first {@code length} bytes of the batch at {@code position} into {@code reuse} (or a
   * larger buffer when it is too small), big-endian, from 0 to {@code length}.
   */
  private static ByteBuffer readHead(
      FileChannel channel, long position, int length, ByteBuffer reuse) {
    ByteBuffer head = reuse.capacity() >= length ? reuse : ByteBuffer.allocate(length);
    head.clear().limit(length);
    try {
      while (head.hasRemaining()) {
        if (channel.read(head, position + head.position()) < 0) {
          throw new IOException("Log segment ends inside the batch at " + position);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return head.flip().order(ByteOrder.BIG_ENDIAN);
  }

  private void project(
      StreamTable table,
      LogBatch header,
      ByteBuffer head,
      FileChannel channel,
      long position,
      int size,
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
            head.slice(messageStart, metadataEnd - messageStart),
            size - messageStart,
            written,
            columns);
    ByteBuffer metadata = plan.metadata();
    ByteBuffer start = ByteBuffer.allocate(PAYLOAD_START + metadata.remaining());
    start.put(LogBatch.rewrittenHeader(head, 4 + (int) plan.messageSize()));
    start.putInt(0); // no statistics: they describe columns the reader did not ask for
    start.put(metadata);
    out.add(start.flip());
    long body = position + messageStart;
    int b = 0;
    while (b < plan.bufferCount()) {
      // Buffers that follow one another in the file with exactly the padding the projected message
      // puts between them (one column's buffers, usually) go out as one range.
      long from = plan.sourceOffset(b);
      long to = from + plan.length(b);
      int padding = plan.padding(b);
      b++;
      while (b < plan.bufferCount() && plan.sourceOffset(b) == to + padding) {
        to = plan.sourceOffset(b) + plan.length(b);
        padding = plan.padding(b);
        b++;
      }
      out.add(channel, body + from, to - from);
      if (padding > 0) {
        out.add(ZEROS.duplicate().limit(padding));
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
            throw new SchemaMismatchException(
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
