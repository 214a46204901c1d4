package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How much a client may make the HTTP server hold, so that no number of slow or unauthenticated
 * clients can exhaust its heap or its connections.
 *
 * @param maxRequestBytes largest request body; a larger declared {@code Content-Length} gets 413 at
 *     once, a larger chunked body gets 413 when it crosses the limit
 * @param requestTimeout time from a request's first byte to its last; a slower request's connection
 *     is closed (after a 408 when nothing else is being answered on it)
 * @param maxBufferedRequestBytes heap that the bodies of all connections' unanswered requests may
 *     hold together; a request whose body would exceed it gets 503 with {@code Retry-After}
 * @param maxConnectionsPerAddress open connections from one client address; further ones are closed
 *     as soon as they are accepted
 */
public record HttpLimits(
    long maxRequestBytes,
    Duration requestTimeout,
    long maxBufferedRequestBytes,
    int maxConnectionsPerAddress) {

  public HttpLimits {
    if (maxRequestBytes < 0) {
      throw new IllegalArgumentException("maxRequestBytes is negative: " + maxRequestBytes);
    }
    requireNonNull(requestTimeout, "requestTimeout is null");
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout is not positive: " + requestTimeout);
    }
    if (maxBufferedRequestBytes <= 0) {
      throw new IllegalArgumentException(
          "maxBufferedRequestBytes is not positive: " + maxBufferedRequestBytes);
    }
    if (maxConnectionsPerAddress <= 0) {
      throw new IllegalArgumentException(
          "maxConnectionsPerAddress is not positive: " + maxConnectionsPerAddress);
    }
  }

  /** The limits with only the body size set, the others at their defaults (for tests). */
  public static HttpLimits withMaxRequestBytes(long maxRequestBytes) {
    return new HttpLimits(maxRequestBytes, Duration.ofSeconds(30), 256L << 20, 64);
  }
}
