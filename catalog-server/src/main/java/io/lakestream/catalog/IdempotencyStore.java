package io.lakestream.catalog;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Durable record of mutating requests by their client-chosen {@code Idempotency-Key}, so that a
 * client retrying after a lost response gets the first outcome instead of a conflict.
 *
 * <p>A key moves through two states: <em>claimed</em> (a request with it changed the catalog and
 * its response is not stored yet) and <em>completed</em> (its response is stored). A claim is
 * recorded in the same database transaction as the request's change ({@link #runClaiming}). A
 * request that declared its answer before the change ({@link IdempotencyClaim#answerOnCommit}) has
 * that transaction store the answer as well, so its key is completed with no transaction of its
 * own; otherwise {@link #complete} stores the response afterwards. Records expire after the
 * lifetime the server advertises; an expired key is free again. A claim whose response was never
 * stored (the server died after the change) stays claimed until it expires, because replaying
 * "success" without the response, or running the request again, would both be wrong.
 *
 * <p>Implementations are thread safe and safe across server processes sharing a database: of
 * several concurrent requests with one new key, at most one commits a change.
 */
public interface IdempotencyStore {

  /** The stored outcome of a completed request. */
  record Outcome(int status, Map<String, String> headers, String body) {
    public Outcome {
      headers = Map.copyOf(headers);
    }
  }

  /**
   * A key used before; {@code fingerprint} tells whether for the same request, {@code outcome} is
   * empty while that request is still being served.
   */
  record Existing(String fingerprint, Optional<Outcome> outcome) {}

  /** The unexpired record of a key at {@code nowMillis}, if there is one. Reads only. */
  Optional<Existing> find(String key, long nowMillis);

  /**
   * Runs a request's work so that the first catalog transaction it commits also records {@code
   * claim} (then {@link IdempotencyClaim#recorded()} is true), completed with the answer the work
   * declared for that change if it declared one (then {@link IdempotencyClaim#completedOutcome()}
   * holds it, and the caller must answer with exactly that). Work that commits no change records
   * nothing.
   *
   * @throws KeyClaimedException if another request recorded the key first; the transaction that
   *     would have recorded it was rolled back
   */
  <T> T runClaiming(IdempotencyClaim claim, Supplier<T> work);

  /**
   * Stores the outcome of a request. A recorded claim becomes completed; for an unrecorded claim
   * (the request changed nothing) a completed record is created unless the key is taken.
   *
   * <p><b>Durability.</b> The completion of a recorded claim is durable when this returns. The
   * record of an unrecorded claim may instead become durable with the store's next durable write: a
   * crash of the machine before then can lose it, and a repeat of the request then runs again,
   * which is safe because the request changed nothing (as for a key whose record expired).
   *
   * @return false if another request holds the key, whose record is kept
   */
  boolean complete(IdempotencyClaim claim, Outcome outcome);

  /** Deletes records expired before {@code nowMillis}; returns how many. */
  int purgeExpired(long nowMillis);

  /** Another request recorded the key while this one ran; this one's change was rolled back. */
  final class KeyClaimedException extends RuntimeException {
    public KeyClaimedException(String key) {
      super("Idempotency-Key " + key + " was claimed by a concurrent request", null, false, false);
    }
  }
}
