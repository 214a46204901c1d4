package io.lakestream.client.arrow;

import com.google.flatbuffers.FlatBufferBuilder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.Buffer;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.flatbuf.FieldNode;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.MetadataVersion;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One encapsulated Arrow IPC record batch message, parsed and checked once: the continuation marker
 * {@code 0xFFFFFFFF}, the metadata length, the flatbuffer {@code Message} (padded to 8 bytes) and
 * the body. Every field node and buffer is copied out of the flatbuffer, and every buffer is
 * checked to lie inside the body, so later steps never read the flatbuffer again.
 */
final class RecordBatchMessage {
  static final byte NO_CODEC = -1;

  private static final int CONTINUATION_MARKER = 0xFFFFFFFF;
  private static final int PREFIX_LENGTH = 8;
  // FieldNode and Buffer are both structs of two longs.
  private static final int STRUCT_LENGTH = 16;

  private final ByteBuffer bytes;
  private final int bodyStart;
  private final long rowCount;
  private final long[] nodeLengths;
  private final long[] nodeNullCounts;
  private final long[] bufferOffsets;
  private final long[] bufferLengths;
  private final byte codec;

  private RecordBatchMessage(
      ByteBuffer bytes,
      int bodyStart,
      long rowCount,
      long[] nodeLengths,
      long[] nodeNullCounts,
      long[] bufferOffsets,
      long[] bufferLengths,
      byte codec) {
    this.bytes = bytes;
    this.bodyStart = bodyStart;
    this.rowCount = rowCount;
    this.nodeLengths = nodeLengths;
    this.nodeNullCounts = nodeNullCounts;
    this.bufferOffsets = bufferOffsets;
    this.bufferLengths = bufferLengths;
    this.codec = codec;
  }

  /** Parses the remaining bytes of {@code input}, which must be exactly one message. */
  static RecordBatchMessage parse(ByteBuffer input) {
    return parse(input, input.remaining());
  }

  /**
   * Parses the start of a message of {@code size} bytes: {@code head} holds at least its prefix and
   * metadata. The result describes the whole message but holds only {@code head}, so it can plan a
   * projection ({@link #plan}) but not read the body.
   */
  static RecordBatchMessage parseHead(ByteBuffer head, long size) {
    return parse(head, size);
  }

  private static RecordBatchMessage parse(ByteBuffer input, long size) {
    ByteBuffer bytes = input.slice().order(ByteOrder.LITTLE_ENDIAN);
    if (size < bytes.remaining()) {
      throw invalid("is shorter than the bytes given for it");
    }
    if (size < PREFIX_LENGTH || bytes.remaining() < PREFIX_LENGTH) {
      throw invalid(
          "is truncated: "
              + Math.min(size, bytes.remaining())
              + " bytes, the prefix alone needs "
              + PREFIX_LENGTH);
    }
    int marker = bytes.getInt(0);
    if (marker != CONTINUATION_MARKER) {
      throw invalid(
          String.format(
              "does not start with the IPC continuation marker 0xFFFFFFFF (found 0x%08X)", marker));
    }
    int metadataLength = bytes.getInt(4);
    if (metadataLength <= 0) {
      throw invalid("declares a metadata length of " + metadataLength);
    }
    if (metadataLength > Math.min(size, bytes.remaining()) - PREFIX_LENGTH) {
      throw invalid(
          "is truncated: the metadata needs "
              + metadataLength
              + " bytes but only "
              + (Math.min(size, bytes.remaining()) - PREFIX_LENGTH)
              + " remain");
    }
    int bodyStart = PREFIX_LENGTH + metadataLength;
    ByteBuffer metadata = bytes.slice(PREFIX_LENGTH, metadataLength).order(ByteOrder.LITTLE_ENDIAN);
    try {
      return parseMetadata(bytes, size, metadata, bodyStart);
    } catch (InvalidBatchFormatException e) {
      throw e;
    } catch (RuntimeException e) {
      // The flatbuffer accessors do not verify; corrupt offsets surface as bounds errors.
      throw new InvalidBatchFormatException(
          "Record batch message has corrupt flatbuffer metadata: " + e, e);
    }
  }

  private static RecordBatchMessage parseMetadata(
      ByteBuffer bytes, long size, ByteBuffer metadata, int bodyStart) {
    Message message = Message.getRootAsMessage(metadata);
    if (message.version() != MetadataVersion.V5) {
      throw invalid("has metadata version " + nameOf(MetadataVersion.names, message.version()));
    }
    if (message.headerType() != MessageHeader.RecordBatch) {
      throw invalid(
          "is a "
              + nameOf(MessageHeader.names, message.headerType())
              + " message, not a RecordBatch message");
    }
    long bodyLength = message.bodyLength();
    long available = size - bodyStart;
    if (bodyLength < 0 || bodyLength > available) {
      throw invalid(
          "is truncated: the body needs "
              + bodyLength
              + " bytes but only "
              + available
              + " remain");
    }
    if (bodyLength < available) {
      throw invalid("has " + (available - bodyLength) + " trailing bytes after its body");
    }
    RecordBatch batch = (RecordBatch) message.header(new RecordBatch());
    if (batch == null) {
      throw invalid("has no RecordBatch header");
    }
    long rowCount = batch.length();
    if (rowCount < 0 || rowCount > Integer.MAX_VALUE) {
      throw invalid("declares " + rowCount + " rows");
    }
    if (batch.variadicBufferCountsLength() > 0) {
      throw invalid("has variadic buffer counts, which only view types use");
    }

    int nodeCount = batch.nodesLength();
    int bufferCount = batch.buffersLength();
    // Vector lengths are not verified by flatbuffers; bound them before allocating arrays.
    if (nodeCount < 0
        || bufferCount < 0
        || (long) (nodeCount + (long) bufferCount) * STRUCT_LENGTH > metadata.remaining()) {
      throw invalid(
          "declares "
              + nodeCount
              + " field nodes and "
              + bufferCount
              + " buffers in "
              + metadata.remaining()
              + " bytes of metadata");
    }
    long[] nodeLengths = new long[nodeCount];
    long[] nodeNullCounts = new long[nodeCount];
    FieldNode node = new FieldNode();
    for (int i = 0; i < nodeCount; i++) {
      batch.nodes(node, i);
      nodeLengths[i] = node.length();
      nodeNullCounts[i] = node.nullCount();
      if (nodeLengths[i] < 0 || nodeLengths[i] > Integer.MAX_VALUE) {
        throw invalid("field node " + i + " declares " + nodeLengths[i] + " values");
      }
      if (nodeNullCounts[i] < 0 || nodeNullCounts[i] > nodeLengths[i]) {
        throw invalid(
            "field node " + i + " declares " + nodeNullCounts[i] + " nulls in " + nodeLengths[i]);
      }
    }

    long[] bufferOffsets = new long[bufferCount];
    long[] bufferLengths = new long[bufferCount];
    Buffer buffer = new Buffer();
    for (int i = 0; i < bufferCount; i++) {
      batch.buffers(buffer, i);
      bufferOffsets[i] = buffer.offset();
      bufferLengths[i] = buffer.length();
      if (bufferOffsets[i] < 0
          || bufferLengths[i] < 0
          || bufferLengths[i] > bodyLength - bufferOffsets[i]) {
        throw invalid(
            "buffer "
                + i
                + " spans bytes ["
                + bufferOffsets[i]
                + ", "
                + (bufferOffsets[i] + bufferLengths[i])
                + ") but the body has "
                + bodyLength
                + " bytes");
      }
    }

    byte codec = NO_CODEC;
    BodyCompression compression = batch.compression();
    if (compression != null) {
      codec = compression.codec();
      if (codec != CompressionType.LZ4_FRAME && codec != CompressionType.ZSTD) {
        throw invalid("uses unknown compression codec " + codec);
      }
      if (compression.method() != BodyCompressionMethod.BUFFER) {
        throw invalid("uses compression method " + compression.method() + " instead of BUFFER");
      }
    }
    return new RecordBatchMessage(
        bytes,
        bodyStart,
        rowCount,
        nodeLengths,
        nodeNullCounts,
        bufferOffsets,
        bufferLengths,
        codec);
  }

  /** Checks that this batch has exactly the nodes and buffers a batch of the layout has. */
  void checkFits(BatchLayout layout) {
    if (nodeLengths.length != layout.nodeCount() || bufferLengths.length != layout.bufferCount()) {
      throw new InvalidBatchFormatException(
          "Record batch has "
              + nodeLengths.length
              + " field nodes and "
              + bufferLengths.length
              + " buffers but schema "
              + layout.schema().getFields()
              + " needs "
              + layout.nodeCount()
              + " field nodes and "
              + layout.bufferCount()
              + " buffers");
    }
    for (int column = 0; column < layout.columnCount(); column++) {
      long values = nodeLengths[layout.firstNode(column)];
      if (values != rowCount) {
        Field field = layout.schema().getFields().get(column);
        throw new InvalidBatchFormatException(
            "Record batch column "
                + column
                + " ("
                + field.getName()
                + ") has "
                + values
                + " values but the batch has "
                + rowCount
                + " rows");
      }
    }
  }

  int rowCount() {
    return (int) rowCount;
  }

  int nodeCount() {
    return nodeLengths.length;
  }

  long nodeLength(int node) {
    return nodeLengths[node];
  }

  long nodeNullCount(int node) {
    return nodeNullCounts[node];
  }

  int bufferCount() {
    return bufferLengths.length;
  }

  /** The body: a view of the message, which callers only read. */
  ByteBuffer body() {
    // Not a read-only view: Arrow copies from a read-only heap buffer 8 bytes at a time, and from a
    // writable one (or a direct one) with one bulk copy. Callers only read it.
    return bytes.slice(bodyStart, bytes.remaining() - bodyStart);
  }

  /** Where a buffer starts in the body. */
  long bufferOffset(int index) {
    return bufferOffsets[index];
  }

  long bufferLength(int index) {
    return bufferLengths[index];
  }

  /** The body compression codec ({@link CompressionType}), or {@link #NO_CODEC}. */
  byte codec() {
    return codec;
  }

  /**
   * A new message with only the given columns of the layout, in the given order. Buffers are copied
   * byte for byte, each starting on an 8-byte boundary of the new body; compressed buffers stay
   * valid because Arrow compresses every buffer separately.
   */
  ByteBuffer project(BatchLayout layout, int[] columns) {
    ProjectionPlan plan = plan(layout, columns);
    if (plan.messageSize() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Projected message would be " + plan.messageSize() + " bytes");
    }
    ByteBuffer out = ByteBuffer.allocate((int) plan.messageSize());
    out.put(plan.metadata());
    for (int i = 0; i < plan.bufferCount(); i++) {
      out.put(
          bytes
              .duplicate()
              .position((int) plan.sourceOffset(i))
              .limit((int) (plan.sourceOffset(i) + plan.length(i))));
      out.position(out.position() + plan.padding(i));
    }
    return out.position(0);
  }

  /**
   * How to build the message with only the given columns of the layout, in the given order: new
   * metadata, then each kept buffer of this message at an 8-byte boundary of the new body.
   */
  ProjectionPlan plan(BatchLayout layout, int[] columns) {
    int nodeCount = 0;
    int bufferCount = 0;
    for (int column : columns) {
      nodeCount += layout.nodeCount(column);
      bufferCount += layout.bufferCount(column);
    }
    long[] newNodeLengths = new long[nodeCount];
    long[] newNullCounts = new long[nodeCount];
    long[] sourceOffsets = new long[bufferCount];
    long[] newOffsets = new long[bufferCount];
    long[] newLengths = new long[bufferCount];
    int[] paddings = new int[bufferCount];
    int node = 0;
    int buffer = 0;
    long bodyLength = 0;
    for (int column : columns) {
      for (int i = layout.firstNode(column); i < layout.firstNode(column + 1); i++) {
        newNodeLengths[node] = nodeLengths[i];
        newNullCounts[node] = nodeNullCounts[i];
        node++;
      }
      for (int i = layout.firstBuffer(column); i < layout.firstBuffer(column + 1); i++) {
        sourceOffsets[buffer] = bodyStart + bufferOffsets[i];
        newOffsets[buffer] = bodyLength;
        newLengths[buffer] = bufferLengths[i];
        long end = bodyLength + bufferLengths[i];
        bodyLength = align8(end);
        paddings[buffer] = (int) (bodyLength - end);
        buffer++;
      }
    }

    ByteBuffer metadata =
        writeMetadata(rowCount, newNodeLengths, newNullCounts, newOffsets, newLengths, bodyLength);
    int paddedMetadataLength = (int) align8(PREFIX_LENGTH + metadata.remaining()) - PREFIX_LENGTH;
    ByteBuffer head =
        ByteBuffer.allocate(PREFIX_LENGTH + paddedMetadataLength).order(ByteOrder.LITTLE_ENDIAN);
    head.putInt(CONTINUATION_MARKER);
    head.putInt(paddedMetadataLength);
    head.put(metadata);
    head.position(0).order(ByteOrder.BIG_ENDIAN);
    return new ProjectionPlan(
        head, sourceOffsets, newLengths, paddings, head.remaining() + bodyLength);
  }

  private ByteBuffer writeMetadata(
      long rowCount,
      long[] nodeLengths,
      long[] nullCounts,
      long[] bufferOffsets,
      long[] bufferLengths,
      long bodyLength) {
    FlatBufferBuilder builder = new FlatBufferBuilder(128 + 16 * bufferLengths.length);
    RecordBatch.startNodesVector(builder, nodeLengths.length);
    for (int i = nodeLengths.length - 1; i >= 0; i--) {
      FieldNode.createFieldNode(builder, nodeLengths[i], nullCounts[i]);
    }
    int nodes = builder.endVector();
    RecordBatch.startBuffersVector(builder, bufferLengths.length);
    for (int i = bufferLengths.length - 1; i >= 0; i--) {
      Buffer.createBuffer(builder, bufferOffsets[i], bufferLengths[i]);
    }
    int buffers = builder.endVector();
    int compression =
        codec == NO_CODEC
            ? 0
            : BodyCompression.createBodyCompression(builder, codec, BodyCompressionMethod.BUFFER);
    RecordBatch.startRecordBatch(builder);
    RecordBatch.addLength(builder, rowCount);
    RecordBatch.addNodes(builder, nodes);
    RecordBatch.addBuffers(builder, buffers);
    if (codec != NO_CODEC) {
      RecordBatch.addCompression(builder, compression);
    }
    int batch = RecordBatch.endRecordBatch(builder);
    Message.startMessage(builder);
    Message.addHeaderType(builder, MessageHeader.RecordBatch);
    Message.addHeader(builder, batch);
    Message.addVersion(builder, MetadataVersion.V5);
    Message.addBodyLength(builder, bodyLength);
    builder.finish(Message.endMessage(builder));
    return builder.dataBuffer();
  }

  private static long align8(long value) {
    return (value + 7) & ~7L;
  }

  private static String nameOf(String[] names, int code) {
    return code >= 0 && code < names.length ? names[code] : "unknown (" + code + ")";
  }

  private static InvalidBatchFormatException invalid(String problem) {
    return new InvalidBatchFormatException("Record batch message " + problem);
  }
}
