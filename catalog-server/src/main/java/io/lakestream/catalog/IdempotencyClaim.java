package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.IdempotencyStore.Outcome;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.TableMetadata;

/**
 * The claim of an {@code Idempotency-Key} by the request being served, recorded in the same
 * database transaction as the first catalog change that request commits (see {@link
 * IdempotencyStore#runClaiming}). A request whose change commits has therefore always recorded its
 * key, and a concurrent repeat cannot commit the change a second time.
 *
 * <p>A request whose answer is fixed once it knows what it commits (a table commit answers with the
 * committed metadata, a transaction with 204) declares that answer with {@link #answerOnCommit}
 * before committing. The change's transaction then stores the answer with the key, so the key is
 * completed by the same transaction and no second one is needed ({@link #completedOutcome()}).
 *
 * <p>Belongs to one request and is used by the thread serving it; {@link #recorded()} and {@link
 * #completedOutcome()} may be read from any thread.
 */
public final class IdempotencyClaim {
  /** The claim of the request the current thread serves, while its work runs. */
  static final ScopedValue<IdempotencyClaim> CURRENT = ScopedValue.newInstance();

  private final String key;
  private final String fingerprint;
  private final long createdMillis;
  private final long expiresMillis;
  private Function<TableMetadata, Outcome> answer;
  private Outcome pending;
  private volatile boolean recorded;
  private volatile Outcome completed;

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

  /**
   * Declares the request's answer if its next change commits, as a function of the table metadata
   * that change commits (null for a change of several tables). It must be the answer the request
   * gives, computed from nothing but the request and the committed metadata.
   */
  public void answerOnCommit(Function<TableMetadata, Outcome> answer) {
    this.answer = requireNonNull(answer, "answer is null");
  }

  /**
   * The claim of the request the current thread serves, if it has a key and has not recorded it
   * yet: the claim the next change's transaction records.
   */
  static Optional<IdempotencyClaim> unrecorded() {
    if (!CURRENT.isBound() || CURRENT.get().recorded) {
      return Optional.empty();
    }
    return Optional.of(CURRENT.get());
  }

  /**
   * Computes the declared answer for the metadata about to be committed, for the next transaction
   * to store. Called before the transaction, so that serializing the answer does not hold database
   * locks.
   */
  void prepareAnswer(TableMetadata committed) {
    pending = answer == null ? null : answer.apply(committed);
  }

  /** The prepared answer for the transaction about to record the claim; it is used once. */
  Outcome takePreparedAnswer() {
    Outcome taken = pending;
    pending = null;
    return taken;
  }

  /** Whether the claim was committed together with a change of the catalog. */
  public boolean recorded() {
    return recorded;
  }

  /**
   * The answer stored by the transaction that recorded the claim, if it stored one: the request's
   * response, already durable under its key.
   */
  public Optional<Outcome> completedOutcome() {
    return Optional.ofNullable(completed);
  }

  void markRecorded(Outcome stored) {
    completed = stored;
    recorded = true;
  }
}
