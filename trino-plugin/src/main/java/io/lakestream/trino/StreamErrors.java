package io.lakestream.trino;

import io.lakestream.client.rpc.RpcException;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.auth.OAuthTokens;
import io.lakestream.scan.LogRangeGoneException;
import io.trino.spi.TrinoException;
import java.util.Optional;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.exceptions.ServiceFailureException;

/**
 * The one mapping from the stream client's and the lake's exceptions to Trino errors ({@link
 * LakestreamErrorCode}), each message starting with what the connector was doing.
 */
public final class StreamErrors {
  private StreamErrors() {}

  /**
   * The Iceberg REST client's exception among {@code failure} and its causes (Trino's Iceberg
   * connector wraps them in errors that do not say what went wrong), if there is one.
   */
  public static Optional<RuntimeException> restFailure(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof NotAuthorizedException
          || cause instanceof ForbiddenException
          || cause instanceof ServiceFailureException
          || cause instanceof RESTException) {
        return Optional.of((RuntimeException) cause);
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return Optional.empty();
  }

  /** A Trino error for {@code failure}, which happened while doing {@code what}. */
  public static TrinoException toTrino(String what, RuntimeException failure) {
    if (failure instanceof TrinoException trino) {
      return trino;
    }
    String message = what + ": " + failure.getMessage();
    if (failure instanceof RpcException rpc) {
      LakestreamErrorCode code =
          switch (rpc.error()) {
            case NETWORK_ERROR, SERVER_SHUTTING_DOWN, SERVER_BUSY ->
                LakestreamErrorCode.SERVER_UNAVAILABLE;
            case NOT_AUTHENTICATED -> LakestreamErrorCode.NOT_AUTHENTICATED;
            case NOT_AUTHORIZED -> LakestreamErrorCode.NOT_AUTHORIZED;
            case OFFSET_OUT_OF_RANGE -> LakestreamErrorCode.LOG_RANGE_GONE;
            case INVALID_TABLE_DEFINITION,
                SCHEMA_MISMATCH,
                INVALID_BATCH,
                INVALID_MUTATION,
                INVALID_REQUEST,
                DELETE_NOT_SUPPORTED,
                NOT_A_LOG_TABLE,
                NOT_A_PRIMARY_KEY_TABLE,
                UNKNOWN_PARTITION ->
                LakestreamErrorCode.INVALID_TABLE_DEFINITION;
            default -> LakestreamErrorCode.SERVER_ERROR;
          };
      return new TrinoException(code, message + " (" + rpc.error() + ")", failure);
    }
    if (failure instanceof LogRangeGoneException) {
      return new TrinoException(LakestreamErrorCode.LOG_RANGE_GONE, message, failure);
    }
    if (failure instanceof OAuthTokens.TokenException) {
      return new TrinoException(LakestreamErrorCode.SERVER_UNAVAILABLE, message, failure);
    }
    if (failure instanceof TieringException) {
      return new TrinoException(LakestreamErrorCode.LOG_READ_TIMEOUT, message, failure);
    }
    if (failure instanceof NotAuthorizedException) {
      return new TrinoException(LakestreamErrorCode.NOT_AUTHENTICATED, message, failure);
    }
    if (failure instanceof ForbiddenException) {
      return new TrinoException(LakestreamErrorCode.NOT_AUTHORIZED, message, failure);
    }
    if (failure instanceof ServiceFailureException || failure instanceof RESTException) {
      // "Error occurred while processing GET request" alone does not say the server is down.
      Throwable cause = failure.getCause();
      return new TrinoException(
          LakestreamErrorCode.SERVER_UNAVAILABLE,
          cause == null || cause.getMessage() == null
              ? message
              : message + " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")",
          failure);
    }
    return new TrinoException(LakestreamErrorCode.SERVER_ERROR, message, failure);
  }
}
