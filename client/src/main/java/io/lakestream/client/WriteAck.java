package io.lakestream.client;

import static java.util.Objects.requireNonNull;

/**
 * The server's acknowledgement of the batch a row was sent in: the row is durable (fsynced on the
 * server) and visible to readers. Every row of a batch gets the same acknowledgement, so one object
 * serves a whole batch.
 *
 * <p>For a log table the batch's rows have the offsets {@code baseOffset} to {@code lastOffset}, in
 * the order they were appended. For a primary-key table the offsets are those of the changelog
 * records the batch's upserts and deletes produced, which may be more or fewer than its rows (an
 * update is two records, a write that changes nothing none: then {@code lastOffset < baseOffset}).
 *
 * @param bucket the partition and bucket the batch went to
 * @param baseOffset the offset of the batch's first record in the bucket's log
 * @param lastOffset the offset of its last record
 * @param rows the rows (writes) of the batch
 * @param duplicate whether the server had stored the batch already (a resend after a lost
 *     response): the offsets are then those of the first time
 */
public record WriteAck(
    TableBucket bucket, long baseOffset, long lastOffset, int rows, boolean duplicate) {
  /**
   * Checks the acknowledgement's fields.
   *
   * @throws NullPointerException for a null bucket
   */
  public WriteAck {
    requireNonNull(bucket, "bucket is null");
  }

  /**
   * The records of the batch: {@code lastOffset - baseOffset + 1}, 0 when it produced none.
   *
   * @return the number of records
   */
  public long recordCount() {
    return Math.max(0, lastOffset - baseOffset + 1);
  }
}
