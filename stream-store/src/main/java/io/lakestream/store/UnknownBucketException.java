package io.lakestream.store;

/** A request naming a bucket outside the table's buckets. */
public final class UnknownBucketException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public UnknownBucketException(String message) {
    super(message);
  }
}
