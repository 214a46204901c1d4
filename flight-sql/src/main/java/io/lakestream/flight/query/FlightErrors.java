package io.lakestream.flight.query;

import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.scan.LogRangeGoneException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place that maps failures to Flight {@link CallStatus}es. */
public final class FlightErrors {
  private static final Logger LOG = LoggerFactory.getLogger(FlightErrors.class);

  private FlightErrors() {}

  public static FlightRuntimeException toFlight(Throwable error) {
    CallStatus status =
        switch (error) {
          case FlightRuntimeException flight -> null;
          case InvalidQueryException e -> CallStatus.INVALID_ARGUMENT;
          case QueryLimitException e -> CallStatus.RESOURCE_EXHAUSTED;
          case QueryCancelledException e -> CallStatus.CANCELLED;
          case QueryTimeoutException e -> CallStatus.TIMED_OUT;
          case NoSuchTableException e -> CallStatus.NOT_FOUND;
          case NoSuchNamespaceException e -> CallStatus.NOT_FOUND;
          case NotAuthorizedException e -> CallStatus.UNAUTHENTICATED;
          case ForbiddenException e -> CallStatus.UNAUTHORIZED;
          case UnsupportedOperationException e -> CallStatus.UNIMPLEMENTED;
          case LogRangeGoneException e -> CallStatus.INTERNAL;
          case IllegalArgumentException e -> CallStatus.INVALID_ARGUMENT;
          default -> {
            LOG.warn("Flight SQL call failed", error);
            yield CallStatus.INTERNAL;
          }
        };
    if (status == null) {
      return (FlightRuntimeException) error;
    }
    return status
        .withDescription(String.valueOf(error.getMessage()))
        .withCause(error)
        .toRuntimeException();
  }

  /**
   * Runs {@code call}; a failure goes to {@code listener} as the Flight error {@link #toFlight}
   * maps it to, the way every Flight call that answers through a listener reports it.
   */
  public static void answering(FlightProducer.StreamListener<?> listener, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      listener.onError(toFlight(e));
    }
  }

  static FlightRuntimeException notImplemented(String what) {
    return CallStatus.UNIMPLEMENTED
        .withDescription(what + " is not implemented by Lakestream's Flight SQL endpoint yet")
        .toRuntimeException();
  }
}
