package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.catalog.IdempotencyStore;
import io.lakestream.catalog.IdempotencyStore.Claimed;
import io.lakestream.catalog.IdempotencyStore.Existing;
import io.lakestream.catalog.IdempotencyStore.Outcome;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;

/**
 * Honours the {@code Idempotency-Key} header on mutating routes: the first request with a key is
 * served and its outcome stored; a repeat of the same request with the same key gets the stored
 * outcome (same status, body and ETag) without touching the catalog again.
 *
 * <p>Successes and client errors (4xx) are stored; server faults (5xx) are not, so a retry after a
 * fault runs again. Reusing a key for a different request is a 422. A repeat that arrives while the
 * first is still running gets a 503, which clients retry.
 */
public final class IdempotentHandler implements RestHandler {
  public static final String HEADER = "Idempotency-Key";
  private static final int MAX_KEY_LENGTH = 255;

  private final RestHandler delegate;
  private final IdempotencyStore store;
  private final ObjectMapper mapper;
  private final Duration lifetime;
  private final Clock clock;

  public IdempotentHandler(
      RestHandler delegate,
      IdempotencyStore store,
      ObjectMapper mapper,
      Duration lifetime,
      Clock clock) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.store = requireNonNull(store, "store is null");
    this.mapper = requireNonNull(mapper, "mapper is null");
    this.lifetime = requireNonNull(lifetime, "lifetime is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  @Override
  public RestResponse handle(RestRequest request) {
    String key = request.header(HEADER).orElse(null);
    if (key == null || !request.route().mutating()) {
      return delegate.handle(request);
    }
    if (key.isBlank()
        || key.length() > MAX_KEY_LENGTH
        || !key.chars().allMatch(c -> c > 32 && c < 127)) {
      throw new BadRequestException(
          "Invalid Idempotency-Key: expected 1 to %d visible ASCII characters", MAX_KEY_LENGTH);
    }
    String fingerprint = fingerprint(request);
    long now = clock.millis();
    IdempotencyStore.Claim claim = store.claim(key, fingerprint, now, lifetime.toMillis());
    if (claim instanceof Existing existing) {
      if (!existing.fingerprint().equals(fingerprint)) {
        return error(
            RestErrors.error(
                422,
                "UnprocessableEntityException",
                "Idempotency-Key " + key + " was already used for a different request"));
      }
      if (existing.outcome().isEmpty()) {
        throw new ServiceUnavailableException(
            "A request with Idempotency-Key %s is still in progress; retry later", key);
      }
      Outcome outcome = existing.outcome().get();
      return new RestResponse(
          outcome.status(),
          outcome.body() == null ? null : outcome.body().getBytes(StandardCharsets.UTF_8),
          outcome.headers());
    }
    if (!(claim instanceof Claimed)) {
      throw new IllegalStateException("Unknown claim " + claim);
    }
    RestResponse response;
    try {
      response = delegate.handle(request);
    } catch (RuntimeException e) {
      ErrorResponse error = RestErrors.toErrorResponse(e);
      if (error.code() >= 500) {
        store.release(key);
        throw e;
      }
      String body = ErrorResponseParser.toJson(error);
      store.complete(key, new Outcome(error.code(), Map.of(), body));
      return new RestResponse(error.code(), body.getBytes(StandardCharsets.UTF_8), Map.of());
    }
    byte[] body = serialize(response.body());
    store.complete(
        key,
        new Outcome(
            response.status(),
            response.headers(),
            body == null ? null : new String(body, StandardCharsets.UTF_8)));
    return new RestResponse(response.status(), body, response.headers());
  }

  private static RestResponse error(ErrorResponse error) {
    return new RestResponse(
        error.code(), ErrorResponseParser.toJson(error).getBytes(StandardCharsets.UTF_8), Map.of());
  }

  private byte[] serialize(Object body) {
    if (body == null || body instanceof byte[]) {
      return (byte[]) body;
    }
    try {
      return mapper.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialize response", e);
    }
  }

  /** The route, warehouse, path parameters and a digest of the body. */
  static String fingerprint(RestRequest request) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      digest.update(request.route().name().getBytes(StandardCharsets.UTF_8));
      digest.update((byte) 0);
      digest.update(String.valueOf(request.warehouse()).getBytes(StandardCharsets.UTF_8));
      for (Map.Entry<String, String> entry : new TreeMap<>(request.pathParameters()).entrySet()) {
        digest.update((byte) 0);
        digest.update((entry.getKey() + "=" + entry.getValue()).getBytes(StandardCharsets.UTF_8));
      }
      digest.update((byte) 0);
      digest.update(request.body());
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
