package io.lakestream.trino;

import static io.trino.spi.ErrorType.EXTERNAL;
import static io.trino.spi.ErrorType.USER_ERROR;

import io.trino.spi.ErrorCode;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.ErrorType;

/**
 * The connector's Trino error codes: the one place the plugin names the conditions it reports
 * (codes are stable: new ones go at the end).
 */
public enum LakestreamErrorCode implements ErrorCodeSupplier {
  /** The server cannot be reached, or did not answer in time. */
  SERVER_UNAVAILABLE(0, EXTERNAL),
  /** The server refused the connector's credentials or token (missing, expired, forged). */
  NOT_AUTHENTICATED(1, USER_ERROR),
  /** The server refused a request as not permitted for the connector's principal. */
  NOT_AUTHORIZED(2, USER_ERROR),
  /** A log range of the read is gone from the log (retention deleted rows never tiered). */
  LOG_RANGE_GONE(3, EXTERNAL),
  /**
   * Reading a split's log range stalled: no record arrived for {@code lakestream.log-read-timeout}.
   */
  LOG_READ_TIMEOUT(4, EXTERNAL),
  /** A column type streaming tables cannot hold. */
  UNSUPPORTED_TYPE(5, USER_ERROR),
  /** The server refused a table definition or a row. */
  INVALID_TABLE_DEFINITION(6, USER_ERROR),
  /** Any other error the server answered with. */
  SERVER_ERROR(7, EXTERNAL),
  /** A write was sent but whether it was applied is unknown (the connection failed meanwhile). */
  WRITE_OUTCOME_UNKNOWN(8, EXTERNAL);

  private static final int BASE = 0x0711_0000;

  private final ErrorCode errorCode;

  LakestreamErrorCode(int code, ErrorType type) {
    this.errorCode = new ErrorCode(BASE + code, name(), type);
  }

  @Override
  public ErrorCode toErrorCode() {
    return errorCode;
  }
}
