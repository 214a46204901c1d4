package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

/**
 * The claim of an {@code Idempotency-Key} by the request being served, recorded in the same
 * database transaction as the first catalog change that request commits (see {@link
 * IdempotencyStore#runClaiming}). A request whose change commits has therefore always recorded its
 * key, and a concurrent repeat cannot commit the change a second time.
 *
 * <p>Belongs to one request; {@link #recorded()} may be read from any thread.
 */
public final class IdempotencyClaim {
  /** The claim of the request the current thread serves, while its work runs. */
  static final ScopedValue<IdempotencyClaim> CURRENT = ScopedValue.newInstance();

  private final String key;
  private final String fingerprint;
  private final long createdMillis;
  private final long expiresMillis;
  private volatile boolean recorded;

  /**
   * @param fingerprint identifies the request (route, path, body digest); at most 128 characters
   */
  public IdempotencyClaim(String key, String fingerprint, long createdMillis, long lifetimeMillis) {
    this.key = requireNonNull(key, "key is null");
    this.fingerprint = requireNonNull(fingerprint, "fingerprint is null");
    this.createdMillis = createdMillis;
    this.expiresMillis = createdMillis + lifetimeMillis;
  }

  public String key() {
    return key;
  }

  public String fingerprint() {
    return fingerprint;
  }

  long createdMillis() {
    return createdMillis;
  }

  long expiresMillis() {
    return expiresMillis;
  }

  /** Whether the claim was committed together with a change of the catalog. */
  public boolean recorded() {
    return recorded;
  }

  void markRecorded() {
    recorded = true;
  }
}
