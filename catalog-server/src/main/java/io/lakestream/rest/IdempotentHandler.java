package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.catalog.IdempotencyClaim;
import io.lakestream.catalog.IdempotencyStore;
import io.lakestream.catalog.IdempotencyStore.Existing;
import io.lakestream.catalog.IdempotencyStore.KeyClaimedException;
import io.lakestream.catalog.IdempotencyStore.Outcome;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.iceberg.TableMetadata;
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
 * first is still running gets a 503, which clients retry, or the first one's outcome.
 *
 * <p>The key is claimed in the same database transaction as the request's change (see {@link
 * IdempotencyStore#runClaiming}) rather than in one of its own before it, so at most one of several
 * concurrent repeats commits its change. Routes whose answer follows from what they commit (table
 * commits, transactions) declare it with {@link #answerOnCommit}; their change's transaction then
 * stores the outcome too, and a successful commit costs that one transaction. Other routes store
 * their outcome in a second transaction after the change.
 */
public final class IdempotentHandler implements RestHandler {
  public static final String HEADER = "Idempotency-Key";
  private static final int MAX_KEY_LENGTH = 255;

  /** The keyed request the current thread serves, while the delegate runs. */
  private static final ScopedValue<Serving> SERVING = ScopedValue.newInstance();

  private record Serving(IdempotentHandler handler, IdempotencyClaim claim) {}

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
  public Optional<RestResponse> handleWithoutWaiting(RestRequest request) {
    return request.route().mutating() ? Optional.empty() : delegate.handleWithoutWaiting(request);
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
    Optional<Existing> existing = store.find(key, now);
    if (existing.isPresent()) {
      return replay(key, fingerprint, existing.get());
    }
    IdempotencyClaim claim = new IdempotencyClaim(key, fingerprint, now, lifetime.toMillis());
    RestResponse response;
    Outcome outcome;
    try {
      response =
          store.runClaiming(
              claim,
              () ->
                  ScopedValue.where(SERVING, new Serving(this, claim))
                      .call(() -> delegate.handle(request)));
      if (claim.completedOutcome().isPresent()) {
        return response(claim.completedOutcome().get());
      }
      byte[] body = serialize(response.body());
      response = new RestResponse(response.status(), body, response.headers());
      outcome =
          new Outcome(
              response.status(),
              response.headers(),
              body == null ? null : new String(body, StandardCharsets.UTF_8));
    } catch (KeyClaimedException e) {
      return replayConcurrent(key, fingerprint, now);
    } catch (RuntimeException e) {
      if (claim.completedOutcome().isPresent()) {
        // The change committed with its answer; what failed after it does not change the answer.
        return response(claim.completedOutcome().get());
      }
      ErrorResponse error = RestErrors.toErrorResponse(e);
      if (error.code() >= 500) {
        // Not stored: a retry runs again, unless this request's change committed, in which case
        // its claim stays until it expires (running it again or replaying a success would lie).
        throw e;
      }
      String body = ErrorResponseParser.toJson(error);
      response = new RestResponse(error.code(), body.getBytes(StandardCharsets.UTF_8), Map.of());
      outcome = new Outcome(error.code(), Map.of(), body);
    }
    if (!store.complete(claim, outcome)) {
      // A concurrent repeat committed while this one changed nothing: its outcome is the key's.
      return replayConcurrent(key, fingerprint, now);
    }
    return response;
  }

  private RestResponse replayConcurrent(String key, String fingerprint, long now) {
    Existing existing =
        store
            .find(key, now)
            .orElseThrow(
                () ->
                    new ServiceUnavailableException(
                        "A request with Idempotency-Key %s is still in progress; retry later",
                        key));
    return replay(key, fingerprint, existing);
  }

  private static RestResponse replay(String key, String fingerprint, Existing existing) {
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
    return response(existing.outcome().get());
  }

  /**
   * Declares the answer of the request being served if the table change it is about to commit
   * succeeds, as a function of the committed table metadata (null for a multi-table transaction). A
   * keyed request then stores its outcome in the change's own transaction and answers with exactly
   * what it stored. Does nothing for a request without a key.
   */
  public static void answerOnCommit(Function<TableMetadata, RestResponse> answer) {
    if (SERVING.isBound()) {
      Serving serving = SERVING.get();
      serving
          .claim()
          .answerOnCommit(committed -> serving.handler().outcome(answer.apply(committed)));
    }
  }

  private Outcome outcome(RestResponse response) {
    byte[] body = serialize(response.body());
    return new Outcome(
        response.status(),
        response.headers(),
        body == null ? null : new String(body, StandardCharsets.UTF_8));
  }

  private static RestResponse response(Outcome outcome) {
    return new RestResponse(
        outcome.status(),
        outcome.body() == null ? null : outcome.body().getBytes(StandardCharsets.UTF_8),
        outcome.headers());
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
