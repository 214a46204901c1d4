package io.lakestream.client.batch;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * One batch of the log as stored on disk and sent on the wire: a fixed header followed by an opaque
 * payload (an Arrow IPC record batch, possibly compressed).
 *
 * <pre>
 * offset  size  field
 *  0      8     base offset (assigned by the tablet on append)
 *  8      4     batch length: bytes after this field
 * 12      1     magic (format version, 1)
 * 13      8     commit timestamp (epoch milliseconds, assigned on append)
 * 21      4     CRC-32C of every byte from offset 25 to the end of the batch
 * 25      2     attributes: bits 0-2 compression codec, bit 3 rows carry change types
 * 27      4     record count
 * 31      4     schema id of the payload
 * 35      8     writer id (-1 when the writer is not idempotent)
 * 43      4     writer sequence of this batch
 * 47      ...   payload
 * </pre>
 *
 * <p>All integers are big-endian. The CRC covers everything after it, which is everything the
 * tablet does not assign: the writer computes it once, the base offset and commit timestamp are
 * stamped on append without recomputing it, and a torn or corrupted batch fails the check from the
 * writer's memory to the reader's. Instances wrap a buffer positioned at the batch start and are
 * not thread safe.
 */
public final class LogBatch {
  /** Bytes of the fixed header; the payload starts here. */
  public static final int HEADER_SIZE = 47;

  /** The format version this class writes and reads. */
  public static final byte MAGIC = 1;

  /** The writer id of a batch whose writer is not idempotent (the server does not deduplicate). */
  public static final long NO_WRITER = -1;

  /** Position of the base offset field (int64). */
  public static final int BASE_OFFSET = 0;

  /** Position of the length field (int32): the bytes after it. */
  public static final int LENGTH = 8;

  /** Position of the magic byte. */
  public static final int MAGIC_OFFSET = 12;

  /** Position of the commit timestamp field (int64, epoch milliseconds). */
  public static final int COMMIT_TIMESTAMP = 13;

  /** Position of the CRC-32C field (int32), which covers every byte from {@link #ATTRIBUTES} on. */
  public static final int CRC = 21;

  /** Position of the attributes field (int16). */
  public static final int ATTRIBUTES = 25;

  /** Position of the record count field (int32). */
  public static final int RECORD_COUNT = 27;

  /** Position of the payload's schema id field (int32). */
  public static final int SCHEMA_ID = 31;

  /** Position of the writer id field (int64). */
  public static final int WRITER_ID = 35;

  /** Position of the writer sequence field (int32). */
  public static final int WRITER_SEQUENCE = 43;

  /** Bytes before the length field ends: base offset and length. */
  public static final int LOG_OVERHEAD = 12;

  private final ByteBuffer buffer;
  // Set once the stored CRC has matched the contents. The bytes it covers do not change while a
  // batch is wrapped (assign writes only fields before the CRC), so the server's two checks of an
  // append (the request's, then the tablet's) read a batch's bytes once.
  private boolean crcMatched;

  private LogBatch(ByteBuffer buffer) {
    this.buffer = buffer.slice().order(ByteOrder.BIG_ENDIAN);
  }

  /**
   * Wraps an encoded batch (the buffer from its position to its limit is exactly one batch). Does
   * not check it; see {@link #isValid()}.
   *
   * @param buffer the encoded batch; shared, not copied
   * @return the batch
   */
  public static LogBatch wrap(ByteBuffer buffer) {
    return new LogBatch(requireNonNull(buffer, "buffer is null"));
  }

  /**
   * Encodes a new batch; the tablet assigns its base offset and commit timestamp on append.
   *
   * @param recordCount rows in the payload, at least 1
   * @param schemaId the id of the table schema the payload was written with
   * @param writerId the idempotent writer's id, or {@link #NO_WRITER}
   * @param writerSequence the writer's sequence number of this batch
   * @param attributes compression codec and flags
   * @param payload the payload, from its position to its limit (copied, not consumed)
   * @return a batch in a new heap buffer, with its CRC computed
   * @throws IllegalArgumentException if {@code recordCount} is not positive
   */
  public static LogBatch create(
      int recordCount,
      int schemaId,
      long writerId,
      int writerSequence,
      short attributes,
      ByteBuffer payload) {
    ByteBuffer buffer =
        ByteBuffer.allocate(HEADER_SIZE + payload.remaining()).order(ByteOrder.BIG_ENDIAN);
    buffer.put(HEADER_SIZE, payload.duplicate(), payload.position(), payload.remaining());
    return createInPlace(buffer, recordCount, schemaId, writerId, writerSequence, attributes);
  }

  /**
   * Makes a batch of a buffer whose first {@link #HEADER_SIZE} bytes are left for the header and
   * whose remaining bytes up to its limit are the payload: writes the header and CRC in place, so
   * an encoder can write the payload straight after room for the header without copying it again.
   *
   * @param buffer positioned at 0; becomes the batch's buffer
   * @param recordCount rows in the payload, at least 1
   * @param schemaId the id of the table schema the payload was written with
   * @param writerId the idempotent writer's id, or {@link #NO_WRITER}
   * @param writerSequence the writer's sequence number of this batch
   * @param attributes compression codec and flags
   * @return the batch, with its CRC computed
   * @throws IllegalArgumentException if {@code recordCount} is not positive, or the buffer is not
   *     at position 0 or is shorter than the header
   */
  public static LogBatch createInPlace(
      ByteBuffer buffer,
      int recordCount,
      int schemaId,
      long writerId,
      int writerSequence,
      short attributes) {
    if (recordCount <= 0) {
      throw new IllegalArgumentException("A batch needs at least one record: " + recordCount);
    }
    if (buffer.position() != 0 || buffer.limit() < HEADER_SIZE) {
      throw new IllegalArgumentException("Buffer has no room for a batch header");
    }
    buffer.order(ByteOrder.BIG_ENDIAN);
    int payloadSize = buffer.limit() - HEADER_SIZE;
    buffer.putLong(BASE_OFFSET, 0);
    buffer.putInt(LENGTH, HEADER_SIZE - LOG_OVERHEAD + payloadSize);
    buffer.put(MAGIC_OFFSET, MAGIC);
    buffer.putShort(ATTRIBUTES, attributes);
    buffer.putInt(RECORD_COUNT, recordCount);
    buffer.putLong(COMMIT_TIMESTAMP, 0);
    buffer.putInt(SCHEMA_ID, schemaId);
    buffer.putLong(WRITER_ID, writerId);
    buffer.putInt(WRITER_SEQUENCE, writerSequence);
    LogBatch batch = new LogBatch(buffer);
    buffer.putInt(CRC, batch.computeCrc());
    return batch;
  }

  /**
   * The header of a stored batch whose payload a server replaced with {@code payloadSize} other
   * bytes (a projection) that it sends without reading: every field as in {@code header}, the
   * length for the new payload, and a CRC of 0, since the server checked the stored batch and
   * cannot cover bytes it never reads.
   *
   * @param header at least the first {@link #HEADER_SIZE} bytes of the stored batch, from its
   *     position (not consumed)
   * @param payloadSize the size of the replacing payload in bytes
   * @return a new {@link #HEADER_SIZE}-byte header buffer at position 0
   */
  public static ByteBuffer rewrittenHeader(ByteBuffer header, int payloadSize) {
    ByteBuffer copy = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.BIG_ENDIAN);
    copy.put(0, header, header.position(), HEADER_SIZE);
    copy.putInt(LENGTH, HEADER_SIZE - LOG_OVERHEAD + payloadSize);
    copy.putInt(CRC, 0);
    return copy;
  }

  /**
   * The offset of the batch's first record, assigned by the tablet on append.
   *
   * @return the base offset (0 before the append)
   */
  public long baseOffset() {
    return buffer.getLong(BASE_OFFSET);
  }

  /**
   * The offset of the batch's last record.
   *
   * @return base offset plus record count minus 1
   */
  public long lastOffset() {
    return baseOffset() + recordCount() - 1;
  }

  /**
   * The offset after this batch.
   *
   * @return base offset plus record count
   */
  public long nextOffset() {
    return baseOffset() + recordCount();
  }

  /**
   * The whole batch's size in bytes, from its length field.
   *
   * @return header plus payload bytes
   */
  public int sizeInBytes() {
    return LOG_OVERHEAD + buffer.getInt(LENGTH);
  }

  /**
   * The format version.
   *
   * @return the magic byte ({@link #MAGIC} for a batch this class wrote)
   */
  public byte magic() {
    return buffer.get(MAGIC_OFFSET);
  }

  /**
   * The CRC-32C stored in the header.
   *
   * @return the stored CRC (0 in a header rewritten for a projection)
   */
  public int storedCrc() {
    return buffer.getInt(CRC);
  }

  /**
   * The attributes: bits 0-2 the compression codec, bit 3 set when rows carry change types.
   *
   * @return the attributes field
   */
  public short attributes() {
    return buffer.getShort(ATTRIBUTES);
  }

  /**
   * The number of rows in the payload.
   *
   * @return the record count
   */
  public int recordCount() {
    return buffer.getInt(RECORD_COUNT);
  }

  /**
   * When the batch was appended, assigned by the tablet.
   *
   * @return epoch milliseconds (0 before the append)
   */
  public long commitTimestamp() {
    return buffer.getLong(COMMIT_TIMESTAMP);
  }

  /**
   * The id of the table schema the payload was written with.
   *
   * @return the schema id
   */
  public int schemaId() {
    return buffer.getInt(SCHEMA_ID);
  }

  /**
   * The idempotent writer that wrote the batch.
   *
   * @return the writer id, or {@link #NO_WRITER}
   */
  public long writerId() {
    return buffer.getLong(WRITER_ID);
  }

  /**
   * The writer's sequence number of this batch, by which the server drops duplicates.
   *
   * @return the writer sequence
   */
  public int writerSequence() {
    return buffer.getInt(WRITER_SEQUENCE);
  }

  /**
   * The payload, without copying.
   *
   * @return a slice of the batch's buffer from {@link #HEADER_SIZE} to the batch's end
   */
  public ByteBuffer payload() {
    return buffer.duplicate().position(HEADER_SIZE).limit(sizeInBytes()).slice();
  }

  /**
   * The encoded batch, without copying.
   *
   * @return a view of the batch's buffer from its start to its end
   */
  public ByteBuffer buffer() {
    return buffer.duplicate().position(0).limit(sizeInBytes());
  }

  /**
   * Whether the batch is intact: its length fits the buffer, its magic is {@link #MAGIC} and the
   * stored CRC matches the contents.
   *
   * @return {@code true} if the batch can be read
   */
  public boolean isValid() {
    return sizeInBytes() >= HEADER_SIZE
        && sizeInBytes() <= buffer.limit()
        && magic() == MAGIC
        && crcMatches();
  }

  /**
   * Whether the stored CRC matches the contents ({@link #computeCrc()}). A match is remembered by
   * this view of the batch, which reads its bytes only the first time.
   *
   * @return {@code true} if the CRC matches
   */
  public boolean crcMatches() {
    if (!crcMatched) {
      crcMatched = storedCrc() == computeCrc();
    }
    return crcMatched;
  }

  /**
   * Computes the CRC-32C of the batch's bytes from {@link #ATTRIBUTES} to its end.
   *
   * @return the CRC of the current contents
   */
  public int computeCrc() {
    CRC32C crc = new CRC32C();
    crc.update(buffer.duplicate().position(ATTRIBUTES).limit(sizeInBytes()));
    return (int) crc.getValue();
  }

  /**
   * Stamps the fields the server assigns on append; they are outside the CRC. Only the log tablet
   * calls this.
   *
   * @param baseOffset the offset of the batch's first record
   * @param commitTimestamp the append time in epoch milliseconds
   */
  public void assign(long baseOffset, long commitTimestamp) {
    buffer.putLong(BASE_OFFSET, baseOffset);
    buffer.putLong(COMMIT_TIMESTAMP, commitTimestamp);
  }
}
