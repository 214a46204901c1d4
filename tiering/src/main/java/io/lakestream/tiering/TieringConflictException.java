package io.lakestream.tiering;

import org.apache.iceberg.exceptions.CleanableFailure;

/**
 * A round's commit found that the table no longer holds the offsets the round started from: another
 * tierer committed (part of) the same range first. Nothing was committed; Iceberg's commit does not
 * retry this failure, and the metadata files of the attempt are cleaned up.
 */
public final class TieringConflictException extends RuntimeException implements CleanableFailure {
  public TieringConflictException(String message) {
    super(message);
  }
}
