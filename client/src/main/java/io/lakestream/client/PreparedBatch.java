package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.batch.LogBatch;
import java.nio.ByteBuffer;

/**
 * A batch of rows encoded and framed for one bucket, with the writer id and sequence it will carry,
 * that no one has sent yet: what a preparing writer ({@link Table#newPreparingAppendWriter}, {@link
 * Table#newPreparingUpsertWriter}) returns from {@code prepare()}, for a caller that decides itself
 * when a batch goes out ({@link Table#send(PreparedBatch)}), such as a sink that commits at a
 * checkpoint.
 *
 * <p><b>Idempotence.</b> Sending the same prepared batch again, any number of times and from any
 * connection, stores its rows once, as long as the server still remembers its writer: the server
 * answers a resend of one of the writer's last 5 batches of the bucket with the original offsets,
 * and a resend of an older one with {@link io.lakestream.client.rpc.ErrorCode#DUPLICATE_SEQUENCE}
 * (stored earlier, offsets forgotten). The batches of one writer and bucket must reach the server
 * in sequence order, each after the one before it was acknowledged or answered as a duplicate; a
 * sequence that skips ahead is refused ({@code OUT_OF_ORDER_SEQUENCE}). A server forgets a writer
 * once every log segment holding its batches is deleted by retention and the bucket is reopened (a
 * restart); a batch of a forgotten writer sent again is stored again.
 *
 * <p>Immutable once made; {@link #batch()} and {@link #operations()} hand out the arrays
 * themselves, which callers must not change.
 *
 * @param partition the partition ({@code ""} in an unpartitioned table)
 * @param bucket the bucket within the partition
 * @param targetColumns for a primary-key table's batch, the columns a partial update writes (empty
 *     for whole rows); null for a log table's batch
 * @param operations for a primary-key table's batch, one operation code per row (upsert or delete);
 *     null for a log table's batch
 * @param batch the framed log batch (header with writer id, sequence and CRC, then the encoded
 *     rows)
 */
public record PreparedBatch(
    String partition, int bucket, int[] targetColumns, byte[] operations, byte[] batch) {
  /**
   * Checks the parts; the arrays are kept, not copied.
   *
   * @throws IllegalArgumentException if the bucket is negative, only one of {@code targetColumns}
   *     and {@code operations} is null, the batch is truncated or fails its CRC check, or the
   *     operations do not match its row count
   */
  public PreparedBatch {
    requireNonNull(partition, "partition is null");
    requireNonNull(batch, "batch is null");
    if (bucket < 0) {
      throw new IllegalArgumentException("Bucket must not be negative: " + bucket);
    }
    if ((targetColumns == null) != (operations == null)) {
      throw new IllegalArgumentException(
          "A primary-key table's batch has both target columns and operations, a log table's"
              + " neither");
    }
    if (batch.length < LogBatch.HEADER_SIZE || !LogBatch.wrap(ByteBuffer.wrap(batch)).isValid()) {
      throw new IllegalArgumentException("Prepared batch fails its CRC check or is truncated");
    }
    int rows = LogBatch.wrap(ByteBuffer.wrap(batch)).recordCount();
    if (operations != null && operations.length != rows) {
      throw new IllegalArgumentException(
          "Prepared batch has " + rows + " rows but " + operations.length + " operations");
    }
  }

  /**
   * Whether it holds a primary-key table's upserts and deletes rather than a log table's rows.
   *
   * @return {@code true} if {@link #operations()} is not null
   */
  public boolean keyValue() {
    return operations != null;
  }

  /**
   * The writer id the batch carries.
   *
   * @return the id the server deduplicates the writer's batches by
   */
  public long writerId() {
    return framed().writerId();
  }

  /**
   * The writer's sequence for this bucket that the batch carries.
   *
   * @return the sequence number
   */
  public int sequence() {
    return framed().writerSequence();
  }

  /**
   * The number of rows in the batch.
   *
   * @return the batch's record count
   */
  public int rowCount() {
    return framed().recordCount();
  }

  /** What became of a batch {@link Table#sendInOrder(List)} sent. */
  public enum Outcome {
    /** The server stored the batch's rows now. */
    STORED,
    /**
     * The server had stored the batch before (its writer sent it earlier, perhaps from another
     * process): its rows were not stored again.
     */
    ALREADY_STORED
  }

  /** The batch as the log stores it, without copying. */
  LogBatch framed() {
    return LogBatch.wrap(ByteBuffer.wrap(batch));
  }
}
