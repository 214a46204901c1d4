package io.lakestream.store;

import io.lakestream.client.TableKind;
import io.lakestream.client.arrow.InvalidBatchFormatException;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.store.kv.DeleteNotSupportedException;
import io.lakestream.store.kv.InvalidMutationException;
import io.lakestream.store.log.InvalidBatchException;
import io.lakestream.store.log.OffsetOutOfRangeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.util.concurrent.CompletionException;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * The one mapping from the stream store's exceptions to the stream RPC's {@link ErrorCode}s, as
 * {@code RestErrors} is for REST and {@code FlightErrors} for Flight. The services throw a {@link
 * StreamRequestException} when a check of a request at the boundary refuses it (unknown table,
 * bucket, partition, schema or scan, a table of the wrong kind, a malformed field), catch what the
 * store throws, and turn both into a wire error here. Only the RPC server's frame layer names codes
 * of its own, for errors of the framing itself (a frame too short or too large, an unknown API key,
 * the server busy, an internal error).
 *
 * <table>
 *   <caption>Exceptions and their wire codes</caption>
 *   <tr><th>exception</th><th>code</th><th>message</th></tr>
 *   <tr><td>{@link RpcException}</td><td>its own</td><td>its own</td></tr>
 *   <tr><td>{@link CompletionException}</td><td>that of its cause</td><td></td></tr>
 *   <tr><td>{@link UnsupportedVersionException}</td><td>{@code UNSUPPORTED_VERSION}</td>
 *       <td>raw</td></tr>
 *   <tr><td>{@link NotAuthenticatedException}</td><td>{@code NOT_AUTHENTICATED}</td>
 *       <td>raw</td></tr>
 *   <tr><td>{@link InvalidRequestException}</td><td>{@code INVALID_REQUEST}</td><td>raw</td></tr>
 *   <tr><td>{@link UnknownTableException}</td><td>{@code UNKNOWN_TABLE}</td><td>raw</td></tr>
 *   <tr><td>{@link UnknownPartitionException}</td><td>{@code UNKNOWN_PARTITION}</td>
 *       <td>raw</td></tr>
 *   <tr><td>{@link UnknownBucketException}</td><td>{@code UNKNOWN_BUCKET}</td><td>raw</td></tr>
 *   <tr><td>{@link UnknownScanException}</td><td>{@code UNKNOWN_SCAN}</td><td>raw</td></tr>
 *   <tr><td>{@link WrongTableKindException}</td><td>{@code NOT_A_LOG_TABLE} when a log table is
 *       required, else {@code NOT_A_PRIMARY_KEY_TABLE}</td><td>raw</td></tr>
 *   <tr><td>{@link SchemaMismatchException}</td><td>{@code SCHEMA_MISMATCH}</td><td>raw</td></tr>
 *   <tr><td>{@link DeleteNotSupportedException}</td><td>{@code DELETE_NOT_SUPPORTED}</td>
 *       <td>raw</td></tr>
 *   <tr><td>{@link InvalidMutationException}</td><td>{@code INVALID_MUTATION}</td><td>raw</td></tr>
 *   <tr><td>{@link InvalidBatchException}</td><td>{@code DUPLICATE_SEQUENCE} for a writer
 *       sequence too old to deduplicate, {@code OUT_OF_ORDER_SEQUENCE} for another writer
 *       sequence error, else {@code INVALID_BATCH}</td><td>raw</td></tr>
 *   <tr><td>{@link OffsetOutOfRangeException}</td><td>{@code OFFSET_OUT_OF_RANGE}</td>
 *       <td>with context</td></tr>
 *   <tr><td>{@link InvalidBatchFormatException} (a stored batch: incoming ones are checked by
 *       {@link BatchValidator})</td><td>{@code CORRUPT_BATCH}</td><td>with context</td></tr>
 *   <tr><td>{@link IOException}, {@link UncheckedIOException}</td><td>{@code STORAGE_ERROR}</td>
 *       <td>with context</td></tr>
 *   <tr><td>Arrow's {@link OutOfMemoryException} (no memory to decode a batch)</td>
 *       <td>{@code STORAGE_ERROR}</td><td>with context</td></tr>
 *   <tr><td>{@link BufferUnderflowException} (a truncated request)</td>
 *       <td>{@code INVALID_REQUEST}</td><td>the context alone</td></tr>
 *   <tr><td>{@link IllegalArgumentException} (a request field a check refused)</td>
 *       <td>{@code INVALID_REQUEST}</td><td>with context</td></tr>
 * </table>
 *
 * <p>"With context" is {@code context + ": " + message}, or the exception's message alone when the
 * context is null. Codes never change meaning (see {@link ErrorCode}). Stateless and thread safe.
 */
public final class RpcErrors {
  private RpcErrors() {}

  /** {@link #of(Throwable, String)} without context: the message is the exception's own. */
  public static RpcException of(Throwable error) {
    return of(error, null);
  }

  /**
   * The wire error of a failure.
   *
   * @param context what was being done, naming the table ("Cannot read db.t"); null for none
   * @throws IllegalStateException if {@code error} is none of the mapped exceptions (a bug: only
   *     mapped exceptions are passed here; anything else is the RPC server's internal error)
   */
  public static RpcException of(Throwable error, String context) {
    RpcException mapped = mapped(error, context);
    if (mapped == null) {
      throw new IllegalStateException(
          "No wire error code for " + error.getClass().getName(), error);
    }
    return mapped;
  }

  /** The table above: the wire error of {@code error}, or null when it is not mapped. */
  private static RpcException mapped(Throwable error, String context) {
    return switch (error) {
      case RpcException rpc -> rpc;
      case CompletionException completion when completion.getCause() != null ->
          mapped(completion.getCause(), context);
      case UnsupportedVersionException e ->
          new RpcException(ErrorCode.UNSUPPORTED_VERSION, e.getMessage());
      case NotAuthenticatedException e ->
          new RpcException(ErrorCode.NOT_AUTHENTICATED, e.getMessage());
      case InvalidRequestException e -> new RpcException(ErrorCode.INVALID_REQUEST, e.getMessage());
      case UnknownTableException e -> new RpcException(ErrorCode.UNKNOWN_TABLE, e.getMessage());
      case UnknownPartitionException e ->
          new RpcException(ErrorCode.UNKNOWN_PARTITION, e.getMessage());
      case UnknownBucketException e -> new RpcException(ErrorCode.UNKNOWN_BUCKET, e.getMessage());
      case UnknownScanException e -> new RpcException(ErrorCode.UNKNOWN_SCAN, e.getMessage());
      case WrongTableKindException e ->
          new RpcException(
              e.required() == TableKind.LOG
                  ? ErrorCode.NOT_A_LOG_TABLE
                  : ErrorCode.NOT_A_PRIMARY_KEY_TABLE,
              e.getMessage());
      case SchemaMismatchException e -> new RpcException(ErrorCode.SCHEMA_MISMATCH, e.getMessage());
      case DeleteNotSupportedException e ->
          new RpcException(ErrorCode.DELETE_NOT_SUPPORTED, e.getMessage());
      case InvalidMutationException e ->
          new RpcException(ErrorCode.INVALID_MUTATION, e.getMessage());
      case InvalidBatchException e ->
          new RpcException(
              e.duplicateSequence()
                  ? ErrorCode.DUPLICATE_SEQUENCE
                  : e.sequenceError() ? ErrorCode.OUT_OF_ORDER_SEQUENCE : ErrorCode.INVALID_BATCH,
              e.getMessage());
      case OffsetOutOfRangeException e ->
          new RpcException(ErrorCode.OFFSET_OUT_OF_RANGE, withContext(context, e));
      case InvalidBatchFormatException e ->
          new RpcException(ErrorCode.CORRUPT_BATCH, withContext(context, e));
      case IOException e -> new RpcException(ErrorCode.STORAGE_ERROR, withContext(context, e));
      case UncheckedIOException e ->
          new RpcException(ErrorCode.STORAGE_ERROR, withContext(context, e));
      case OutOfMemoryException e ->
          new RpcException(ErrorCode.STORAGE_ERROR, withContext(context, e));
      case BufferUnderflowException e ->
          new RpcException(
              ErrorCode.INVALID_REQUEST, context == null ? "Truncated request" : context);
      case IllegalArgumentException e ->
          new RpcException(ErrorCode.INVALID_REQUEST, withContext(context, e));
      default -> null;
    };
  }

  /**
   * The failure of a response future as the RPC server should see it: a mapped exception (also
   * inside a {@link CompletionException}) as its wire error, anything else unchanged, which the
   * server logs and reports as an internal error.
   */
  public static CompletionException failure(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    RpcException mapped = mapped(cause, null);
    if (mapped != null) {
      return new CompletionException(mapped);
    }
    return error instanceof CompletionException completion
        ? completion
        : new CompletionException(error);
  }

  /**
   * The wire error of a write whose durability failed: the write may or may not survive a crash, so
   * a client retries with the same writer sequence.
   *
   * @param what what was written ("batch", "changelog")
   */
  public static RpcException notDurable(String what, Throwable error) {
    return new RpcException(
        ErrorCode.STORAGE_ERROR, "Cannot make the " + what + " durable: " + error.getMessage());
  }

  private static String withContext(String context, Throwable error) {
    return context == null ? error.getMessage() : context + ": " + error.getMessage();
  }
}
