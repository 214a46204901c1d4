package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * Encodes, decodes and projects the Arrow part of a log batch: one Arrow IPC <em>record batch
 * message</em> (continuation marker, metadata length, flatbuffer {@code Message} with a {@code
 * RecordBatch} header, metadata version V5, then the body). There is no schema message: the schema
 * comes from the table's schema id, so every method that reads a message takes the {@link Schema}
 * the batch was written with.
 *
 * <p><b>Buffers and ownership.</b> Messages are {@link ByteBuffer}s; a method reads the remaining
 * bytes of its argument without moving its position, and the argument must hold exactly one message
 * (no trailing bytes). {@link #decode} returns a root that the caller owns and must close; its
 * memory comes from the caller's allocator and is released by {@code root.close()} ({@link
 * #decodeInPlace} leaves the body where it is and only accounts for it there). Nothing else here
 * allocates Arrow memory outside the call, and no method closes an argument.
 *
 * <p><b>Failures.</b> Bytes that are not a record batch message of the given schema fail with
 * {@link InvalidBatchFormatException} naming the problem; a schema the format cannot hold (view
 * types, dictionary-encoded fields), a root whose vectors disagree with its row count, or a bad
 * column selection fail with {@link IllegalArgumentException}; an allocator that runs out of room
 * fails with Arrow's {@link OutOfMemoryException}. A failed decode has released everything it
 * allocated.
 *
 * <p><b>Thread safety.</b> All methods are static and stateless; concurrent calls are safe as long
 * as each call's root, allocator and buffers are not used by another thread at the same time (Arrow
 * vectors and allocators are not thread-safe for writing).
 *
 * <p>The JVM needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED} for Arrow's memory access.
 *
 * <p>Internal: the batch format shared with the server; not for applications, whose writers and
 * scanners encode and decode batches.
 */
public final class ArrowBatchCodec {
  // A ZSTD block of 128 KiB can shrink to 4 bytes (RLE); LZ4 frames cannot exceed about 255:1.
  private static final long ZSTD_MAX_RATIO = 65_536;
  private static final long LZ4_MAX_RATIO = 256;
  private static final long DECOMPRESSION_SLACK = 1 << 20;

  /**
   * The ZSTD level batches are written with. On W1 rows level 1 compresses as well as level 3
   * (2.45x vs 2.43x for an 8192-row batch) in a fifth of the time (0.31 vs 1.54 us a row on the
   * 2-core machine), and a writer and a primary-key table's changelog compress every row they send.
   * Readers need not know the level.
   */
  static final int ZSTD_LEVEL = 1;

  private ArrowBatchCodec() {}

  /**
   * Encodes the rows of {@code root} as one record batch message, compressing each buffer with
   * {@code compression}. The root is only read; the caller keeps ownership. Temporary compressed
   * buffers come from the vectors' allocator and are released before returning.
   *
   * @param root the root whose rows are encoded; only read
   * @param compression how each buffer is compressed
   * @return a heap buffer positioned at 0 that holds exactly the message; its length is a multiple
   *     of 8
   * @throws IllegalArgumentException if the schema has a view type or a dictionary-encoded field,
   *     or a vector's value count differs from the root's row count
   */
  public static ByteBuffer encode(VectorSchemaRoot root, Compression compression) {
    requireNonNull(root, "root is null");
    ByteSink out = new ByteSink(estimatedSize(root));
    encode(root, compression, out);
    return ByteBuffer.wrap(out.toByteArray());
  }

  /**
   * Encodes like {@link #encode(VectorSchemaRoot, Compression)} but appends the message to {@code
   * out}, so a caller can frame it without another copy.
   *
   * @param root the root whose rows are encoded; only read
   * @param compression how each buffer is compressed
   * @param out where the message is appended
   * @throws UncheckedIOException if {@code out} fails
   */
  public static void encode(VectorSchemaRoot root, Compression compression, ByteSink out) {
    requireNonNull(root, "root is null");
    requireNonNull(compression, "compression is null");
    requireNonNull(out, "out is null");
    BatchLayout.of(root.getSchema());
    for (FieldVector vector : root.getFieldVectors()) {
      if (vector.getValueCount() != root.getRowCount()) {
        throw new IllegalArgumentException(
            "Cannot encode column "
                + vector.getName()
                + ": it has "
                + vector.getValueCount()
                + " values but the root has "
                + root.getRowCount()
                + " rows");
      }
    }
    CompressionCodec codec = codecFor(compression.codecType());
    try (ArrowRecordBatch batch =
        new VectorUnloader(root, /* includeNullCount= */ true, codec, /* alignBuffers= */ true)
            .getRecordBatch()) {
      MessageSerializer.serialize(new WriteChannel(out), batch, IpcOption.DEFAULT);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write an encoded record batch", e);
    }
  }

  /**
   * About the size of the uncompressed message of a root: its buffers plus room for metadata.
   *
   * @param root the root to encode
   * @return an estimate in bytes, at least 1024, for sizing an output buffer
   */
  public static int estimatedSize(VectorSchemaRoot root) {
    long size = 1024;
    for (FieldVector vector : root.getFieldVectors()) {
      size += vector.getBufferSize() + 64L * (1 + vector.getChildrenFromFields().size());
    }
    return (int) Math.min(Integer.MAX_VALUE - 64, size);
  }

  /**
   * Loads a record batch message into a new root of {@code schema}, decompressing buffers as
   * needed, and checks with Arrow's buffer validation that every buffer is large enough for the
   * values its field node declares, so that a corrupt message fails here instead of making readers
   * see zeros or run past a buffer. (Arrow's {@code VectorLoader} does not check this, and its
   * {@code setRowCount} silently grows buffers that are too small.) The whole body is copied once
   * into {@code allocator}; uncompressed buffers of the root share that copy.
   *
   * @param message exactly one record batch message (its remaining bytes are read)
   * @param schema the schema the batch was encoded with
   * @param allocator where the root's memory comes from
   * @return a root owned by the caller, which must close it
   * @throws InvalidBatchFormatException if the bytes are not a valid record batch of {@code schema}
   * @throws OutOfMemoryException if {@code allocator} cannot hold the batch
   */
  public static VectorSchemaRoot decode(
      ByteBuffer message, Schema schema, BufferAllocator allocator) {
    requireNonNull(message, "message is null");
    requireNonNull(schema, "schema is null");
    requireNonNull(allocator, "allocator is null");
    return decode(message, schema, allocator, null, Long.MAX_VALUE);
  }

  /**
   * Decodes like {@link #decode(ByteBuffer, Schema, BufferAllocator)} and then checks every value
   * the root holds ({@link ValueChecks}: offsets that never go backwards and stay inside their
   * data, strings that are UTF-8, decimals that fit their precision, child vectors that fit their
   * parents), refusing a message whose buffers would take more than {@code maxDecodedBytes} once
   * decompressed before it allocates them. A server runs this on every batch a client sends, so
   * that nothing it stores fails a reader later.
   *
   * @param message exactly one record batch message (its remaining bytes are read)
   * @param schema the schema the batch was encoded with
   * @param allocator where the root's memory comes from
   * @param maxDecodedBytes the most bytes the decoded buffers may take together
   * @return a root owned by the caller, which must close it
   * @throws InvalidBatchFormatException if the bytes are not a valid record batch of {@code schema}
   *     or decode to more than {@code maxDecodedBytes}
   */
  public static VectorSchemaRoot decodeChecked(
      ByteBuffer message, Schema schema, BufferAllocator allocator, long maxDecodedBytes) {
    requireNonNull(message, "message is null");
    requireNonNull(schema, "schema is null");
    requireNonNull(allocator, "allocator is null");
    VectorSchemaRoot root = decode(message, schema, allocator, null, maxDecodedBytes);
    try {
      for (FieldVector vector : root.getFieldVectors()) {
        ValueChecks.checkFull(vector);
      }
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw new InvalidBatchFormatException(
          "Record batch has invalid values for schema "
              + schema.getFields()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Loads a record batch message like {@link #decode(ByteBuffer, Schema, BufferAllocator)}, with
   * the same checks, but without copying its body: the root's uncompressed buffers point into the
   * memory of {@code message}, which must be a direct buffer that nobody changes or frees until
   * {@code release} has run. The body is accounted in {@code allocator} (as a foreign allocation of
   * its size) for as long as any buffer of the root, or of a vector the root's buffers were
   * transferred to, refers to it. {@code release} runs exactly once: when the last such buffer is
   * closed, or before this method throws.
   *
   * @param message exactly one record batch message in direct memory
   * @param schema the schema the batch was encoded with
   * @param allocator where the body is accounted and decompressed buffers are allocated
   * @param release called once, from whichever thread closes the last buffer, when the body's
   *     memory is no longer referenced
   * @return a root owned by the caller, which must close it
   * @throws IllegalArgumentException if {@code message} is not direct (release has run)
   */
  public static VectorSchemaRoot decodeInPlace(
      ByteBuffer message, Schema schema, BufferAllocator allocator, Runnable release) {
    requireNonNull(release, "release is null");
    AtomicBoolean released = new AtomicBoolean();
    Runnable once =
        () -> {
          if (released.compareAndSet(false, true)) {
            release.run();
          }
        };
    try {
      requireNonNull(message, "message is null");
      requireNonNull(schema, "schema is null");
      requireNonNull(allocator, "allocator is null");
      if (!message.isDirect()) {
        throw new IllegalArgumentException("A message decoded in place must be in direct memory");
      }
      return decode(message, schema, allocator, once, Long.MAX_VALUE);
    } catch (RuntimeException | Error e) {
      // Every buffer over the body has been closed by now, so nothing refers to it any more.
      once.run();
      throw e;
    }
  }

  /** Decodes, copying the body into {@code allocator} when {@code release} is null. */
  private static VectorSchemaRoot decode(
      ByteBuffer message,
      Schema schema,
      BufferAllocator allocator,
      Runnable release,
      long maxDecodedBytes) {
    BatchLayout layout = BatchLayout.of(schema);
    RecordBatchMessage parsed = RecordBatchMessage.parse(message);
    parsed.checkFits(layout);
    if (maxDecodedBytes != Long.MAX_VALUE) {
      checkDecodedSize(parsed, maxDecodedBytes);
    }

    List<ArrowBuf> buffers = new ArrayList<>(parsed.bufferCount());
    VectorSchemaRoot root = null;
    try {
      loadBuffers(parsed, allocator, release, buffers);
      root = VectorSchemaRoot.create(schema, allocator);
      Iterator<ArrowBuf> nextBuffer = buffers.iterator();
      int nextNode = 0;
      for (FieldVector vector : root.getFieldVectors()) {
        nextNode = load(vector, parsed, nextNode, nextBuffer);
        // Before setRowCount, which would silently grow buffers that are too small.
        ValueVectorUtility.validate(vector);
      }
      root.setRowCount(parsed.rowCount());
      return root;
    } catch (RuntimeException e) {
      if (root != null) {
        root.close();
      }
      if (e instanceof InvalidBatchFormatException || e instanceof OutOfMemoryException) {
        throw e;
      }
      throw new InvalidBatchFormatException(
          "Record batch does not load into schema " + schema.getFields() + ": " + e.getMessage(),
          e);
    } finally {
      // The vectors hold their own references.
      buffers.forEach(ArrowBuf::close);
    }
  }

  /** Loads a vector and its children depth-first, as Arrow lays them out; returns the next node. */
  private static int load(
      FieldVector vector, RecordBatchMessage parsed, int node, Iterator<ArrowBuf> buffers) {
    int bufferCount = TypeLayout.getTypeBufferCount(vector.getField().getType());
    List<ArrowBuf> own = new ArrayList<>(bufferCount);
    for (int i = 0; i < bufferCount; i++) {
      own.add(buffers.next());
    }
    vector.loadFieldBuffers(
        new ArrowFieldNode(parsed.nodeLength(node), parsed.nodeNullCount(node)), own);
    int next = node + 1;
    for (FieldVector child : vector.getChildrenFromFields()) {
      next = load(child, parsed, next, buffers);
    }
    return next;
  }

  /**
   * Returns a new record batch message holding only the given top-level columns, in the given
   * order, without decoding any value: field nodes and buffers of the selected columns (with all
   * their nested children) are copied byte for byte, compressed or not, into a new 8-byte aligned
   * body, and new metadata is written. Decoding the result with {@link #projectSchema(Schema,
   * int[])} gives the same vectors as decoding {@code message} and selecting the columns.
   *
   * @param message exactly one record batch message of {@code schema} (its remaining bytes are
   *     read)
   * @param schema the schema the batch was encoded with
   * @param topLevelColumns indexes into {@code schema.getFields()}, each at most once; may be empty
   * @return a new heap buffer positioned at 0
   * @throws InvalidBatchFormatException if the bytes are not a record batch of {@code schema}
   * @throws IllegalArgumentException if a column index is out of range or repeated
   */
  public static ByteBuffer project(ByteBuffer message, Schema schema, int[] topLevelColumns) {
    requireNonNull(message, "message is null");
    BatchLayout layout = BatchLayout.of(schema);
    checkColumns(topLevelColumns, layout.columnCount());
    RecordBatchMessage parsed = RecordBatchMessage.parse(message);
    parsed.checkFits(layout);
    return parsed.project(layout, topLevelColumns);
  }

  /**
   * Plans the projection of a message that is not in memory: {@code head} holds the start of a
   * message of {@code messageSize} bytes, at least its 8-byte prefix and its metadata (the first 4
   * KiB usually do). The plan says which byte ranges of the original message to send, and gives the
   * new metadata; nothing of the body is read.
   *
   * @param head the first bytes of the message, from its position (not moved)
   * @param messageSize the whole message's size in bytes
   * @param schema the schema the batch was encoded with
   * @param topLevelColumns indexes into {@code schema.getFields()}, each at most once; may be empty
   * @return the byte ranges to send and the new metadata
   * @throws InvalidBatchFormatException if the head is not the start of a record batch message of
   *     {@code schema}, or is too short to hold its metadata
   * @throws IllegalArgumentException if a column index is out of range or repeated
   */
  public static ProjectionPlan planProjection(
      ByteBuffer head, long messageSize, Schema schema, int[] topLevelColumns) {
    requireNonNull(head, "head is null");
    BatchLayout layout = BatchLayout.of(schema);
    checkColumns(topLevelColumns, layout.columnCount());
    RecordBatchMessage parsed = RecordBatchMessage.parseHead(head, messageSize);
    parsed.checkFits(layout);
    return parsed.plan(layout, topLevelColumns);
  }

  /**
   * The metadata length a message declares in its prefix (bytes 4..7), so a reader of a message's
   * head knows how much of it to read: the prefix and metadata take {@code 8 + metadataLength}.
   *
   * @param prefix at least the message's first 8 bytes, from its position (not moved)
   * @return the metadata length in bytes
   */
  public static int metadataLength(ByteBuffer prefix) {
    return prefix.order() == java.nio.ByteOrder.LITTLE_ENDIAN
        ? prefix.getInt(prefix.position() + 4)
        : Integer.reverseBytes(prefix.getInt(prefix.position() + 4));
  }

  /**
   * The schema of a message made by {@link #project}: the selected fields in the given order, with
   * the schema's custom metadata.
   *
   * @param schema the schema the batch was encoded with
   * @param topLevelColumns indexes into {@code schema.getFields()}, each at most once
   * @return the projected schema
   * @throws IllegalArgumentException if a column index is out of range or repeated
   */
  public static Schema projectSchema(Schema schema, int[] topLevelColumns) {
    requireNonNull(schema, "schema is null");
    List<Field> fields = schema.getFields();
    checkColumns(topLevelColumns, fields.size());
    List<Field> selected = new ArrayList<>(topLevelColumns.length);
    for (int column : topLevelColumns) {
      selected.add(fields.get(column));
    }
    return new Schema(selected, schema.getCustomMetadata());
  }

  /** Refuses a message whose buffers declare more than {@code limit} bytes once decompressed. */
  private static void checkDecodedSize(RecordBatchMessage parsed, long limit) {
    long total = 0;
    ByteBuffer body = parsed.body().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < parsed.bufferCount(); i++) {
      long length = parsed.bufferLength(i);
      long decoded = length;
      if (parsed.codec() != RecordBatchMessage.NO_CODEC
          && length >= CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) {
        long declared = body.getLong((int) parsed.bufferOffset(i));
        decoded = declared == CompressionUtil.NO_COMPRESSION_LENGTH ? length : declared;
      }
      if (decoded < 0 || (total += decoded) > limit) {
        throw new InvalidBatchFormatException(
            "Record batch would take more than "
                + limit
                + " bytes decoded (buffer "
                + i
                + " declares "
                + decoded
                + ")");
      }
    }
  }

  private static void loadBuffers(
      RecordBatchMessage parsed,
      BufferAllocator allocator,
      Runnable release,
      List<ArrowBuf> buffers) {
    CompressionCodec codec =
        parsed.codec() == RecordBatchMessage.NO_CODEC
            ? null
            : codecFor(CompressionUtil.CodecType.fromCompressionType(parsed.codec()));
    ByteBuffer bodyBytes = parsed.body();
    // Slices share the body's reference count: every buffer handed on holds one reference.
    try (ArrowBuf body = bodyBuffer(bodyBytes, allocator, release)) {
      for (int i = 0; i < parsed.bufferCount(); i++) {
        ArrowBuf slice = body.slice(parsed.bufferOffset(i), parsed.bufferLength(i));
        if (codec == null || slice.writerIndex() == 0) {
          slice.getReferenceManager().retain();
          buffers.add(slice);
        } else {
          buffers.add(decompress(codec, i, slice, allocator));
        }
      }
    }
  }

  /**
   * The body as one Arrow buffer: a copy in {@code allocator}, or with a {@code release}, the
   * body's own memory wrapped as a foreign allocation that runs {@code release} when freed.
   */
  private static ArrowBuf bodyBuffer(
      ByteBuffer bodyBytes, BufferAllocator allocator, Runnable release) {
    int length = bodyBytes.remaining();
    if (release == null || length == 0) {
      ArrowBuf copy = allocator.buffer(length);
      copy.setBytes(0, bodyBytes);
      if (release != null) {
        // Nothing refers to an empty body.
        release.run();
      }
      return copy;
    }
    long address = MemoryUtil.getByteBufferAddress(bodyBytes) + bodyBytes.position();
    ArrowBuf body =
        allocator.wrapForeignAllocation(
            new ForeignAllocation(length, address) {
              @Override
              protected void release0() {
                release.run();
              }
            });
    body.writerIndex(length);
    return body;
  }

  /**
   * Decompresses one buffer of the body. The result holds its own reference; the reference count of
   * {@code slice} is unchanged on return and on failure.
   */
  private static ArrowBuf decompress(
      CompressionCodec codec, int index, ArrowBuf slice, BufferAllocator allocator) {
    long length = slice.writerIndex();
    if (length < CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) {
      throw new InvalidBatchFormatException(
          "Record batch buffer " + index + " is compressed but only " + length + " bytes long");
    }
    long declared = slice.getLong(0);
    long maxRatio =
        codec.getCodecType().getType() == CompressionType.LZ4_FRAME
            ? LZ4_MAX_RATIO
            : ZSTD_MAX_RATIO;
    if (declared < CompressionUtil.NO_COMPRESSION_LENGTH
        || declared > length * maxRatio + DECOMPRESSION_SLACK) {
      throw new InvalidBatchFormatException(
          "Record batch buffer "
              + index
              + " declares an uncompressed length of "
              + declared
              + " bytes for "
              + length
              + " compressed bytes");
    }
    if (declared == CompressionUtil.NO_COMPRESSION_LENGTH) {
      // Arrow stores a buffer raw when compression would not shrink it.
      ArrowBuf raw =
          slice.slice(
              CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH,
              length - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH);
      raw.getReferenceManager().retain();
      return raw;
    }
    if (declared == 0) {
      return allocator.getEmpty();
    }
    // The codec closes its input when it succeeds and leaves it open when it fails.
    slice.getReferenceManager().retain();
    try {
      return codec.decompress(allocator, slice);
    } catch (OutOfMemoryException e) {
      slice.getReferenceManager().release();
      throw e;
    } catch (RuntimeException e) {
      slice.getReferenceManager().release();
      throw new InvalidBatchFormatException(
          "Record batch buffer "
              + index
              + " does not decompress with "
              + codec.getCodecType()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static CompressionCodec codecFor(CompressionUtil.CodecType type) {
    switch (type) {
      case LZ4_FRAME:
        return new Lz4FrameCodec();
      case ZSTD:
        return new ZstdCodec(ZSTD_LEVEL);
      default:
        return NoCompressionCodec.INSTANCE;
    }
  }

  private static void checkColumns(int[] columns, int columnCount) {
    requireNonNull(columns, "topLevelColumns is null");
    boolean[] seen = new boolean[columnCount];
    for (int column : columns) {
      if (column < 0 || column >= columnCount) {
        throw new IllegalArgumentException(
            "Column " + column + " does not exist: the schema has " + columnCount + " columns");
      }
      if (seen[column]) {
        throw new IllegalArgumentException("Column " + column + " is selected twice");
      }
      seen[column] = true;
    }
  }
}
