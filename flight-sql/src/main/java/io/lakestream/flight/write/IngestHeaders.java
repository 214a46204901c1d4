package io.lakestream.flight.write;

import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;

/**
 * Keeps the request headers ingest reads: the idempotency key ({@value #IDEMPOTENCY_KEY}) of a
 * {@code DoPut}. One instance per call.
 */
public final class IngestHeaders implements FlightServerMiddleware {
  /** The request header that names an ingest, so that a retry of it appends nothing twice. */
  static final String IDEMPOTENCY_KEY = "lakestream-idempotency-key";

  public static final Key<IngestHeaders> KEY = Key.of("lakestream-ingest-headers");

  /** Makes the middleware of each call. */
  public static final Factory<IngestHeaders> FACTORY =
      (CallInfo info, CallHeaders headers, RequestContext context) ->
          new IngestHeaders(headers.get(IDEMPOTENCY_KEY));

  private final String idempotencyKey;

  private IngestHeaders(String idempotencyKey) {
    this.idempotencyKey = idempotencyKey;
  }

  /** The call's idempotency key header, or null when it sent none. */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  @Override
  public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

  @Override
  public void onCallCompleted(CallStatus status) {}

  @Override
  public void onCallErrored(Throwable err) {}
}
