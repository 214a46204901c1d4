package io.lakestream.store;

/**
 * A request naming a partition the table does not have: it is not partitioned, or the partition was
 * never written or expired by retention.
 */
public final class UnknownPartitionException extends StreamRequestException {
  private static final long serialVersionUID = 1L;

  public UnknownPartitionException(String message) {
    super(message);
  }
}
