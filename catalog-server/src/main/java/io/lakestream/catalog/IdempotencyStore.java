package io.lakestream.catalog;

import java.util.Map;
import java.util.Optional;

/**
 * Durable record of mutating requests by their client-chosen {@code Idempotency-Key}, so that a
 * client retrying after a lost response gets the first outcome instead of a conflict.
 *
 * <p>A key moves through two states: <em>claimed</em> (the first request is being served) and
 * <em>completed</em> (its response is stored). Records expire after the lifetime the server
 * advertises; an expired key is free again. Claims survive restarts; a claim whose request never
 * completed (the server died mid-request) is abandoned after the lifetime too, because the outcome
 * of that request is unknown and replaying "success" would be a lie.
 *
 * <p>Implementations are thread safe and safe across server processes sharing a database: exactly
 * one of several concurrent claims of a new key succeeds.
 */
public interface IdempotencyStore {

  /** The stored outcome of a completed request. */
  record Outcome(int status, Map<String, String> headers, String body) {
    public Outcome {
      headers = Map.copyOf(headers);
    }
  }

  /** What a claim found. */
  sealed interface Claim {}

  /** The key is new (or expired) and now belongs to the caller, who must {@link #complete} it. */
  record Claimed() implements Claim {}

  /** The key was used before; {@code fingerprint} tells whether for the same request. */
  record Existing(String fingerprint, Optional<Outcome> outcome) implements Claim {}

  /**
   * Claims a key for a request.
   *
   * @param fingerprint identifies the request (route, path, body digest); at most 128 characters
   * @param nowMillis the current time
   * @param lifetimeMillis how long the record is kept
   */
  Claim claim(String key, String fingerprint, long nowMillis, long lifetimeMillis);

  /** Stores the outcome of a claimed key. */
  void complete(String key, Outcome outcome);

  /** Releases a claim whose request failed in a way that must not be replayed (a server fault). */
  void release(String key);

  /** Deletes records expired before {@code nowMillis}; returns how many. */
  int purgeExpired(long nowMillis);
}
