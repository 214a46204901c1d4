package io.lakestream.client.rpc;

/**
 * Error codes of the stream RPC. A code's number and meaning never change; new conditions get new
 * numbers. {@link #retriable()} tells a client whether the same request may succeed later.
 */
public enum ErrorCode {
  /** Success: the response carries a body, not an error. */
  NONE(0, false),
  /** A failure the server has no code for; the message says what happened. */
  UNKNOWN_SERVER_ERROR(1, false),
  /** No streaming table has that id or path (dropped, or never created). */
  UNKNOWN_TABLE(2, false),
  /** The table has no bucket of that number. */
  UNKNOWN_BUCKET(3, false),
  /** An offset outside the bucket's log: below its log start (retention) or past its end. */
  OFFSET_OUT_OF_RANGE(4, false),
  /**
   * A batch the server refuses: it fails its CRC check, does not decode, or its rows do not fit the
   * table or the partition it is written to; the message says which.
   */
  INVALID_BATCH(5, false),
  /** A writer's batch whose sequence skips ahead of the writer's last one for the bucket. */
  OUT_OF_ORDER_SEQUENCE(6, false),
  /**
   * A token the server refuses, or a request sent before authenticating to a server that needs it.
   */
  NOT_AUTHENTICATED(7, false),
  /** The authenticated principal lacks the grant the request needs. */
  NOT_AUTHORIZED(8, false),
  /** A request frame larger than the server's limit; the server closes the connection. */
  REQUEST_TOO_LARGE(9, false),
  /** A request version the server does not read (see {@link ApiKey#latestVersion()}). */
  UNSUPPORTED_VERSION(10, false),
  /** A malformed or truncated request body, or a value in it the server refuses. */
  INVALID_REQUEST(11, false),
  /** A batch or request naming a schema id the table does not have. */
  SCHEMA_MISMATCH(12, false),
  /** The server could not read or write its storage; the same request may succeed later. */
  STORAGE_ERROR(13, true),
  /** A log-table request (such as a produce) on a table that is not a log table. */
  NOT_A_LOG_TABLE(14, false),
  /** The server is stopping; the same request may succeed on another server or after a restart. */
  SERVER_SHUTTING_DOWN(15, true),
  /** The connection failed before a response arrived (raised by the client, never sent). */
  NETWORK_ERROR(16, true),
  /** A table or namespace of that name already exists. */
  ALREADY_EXISTS(17, false),
  /** The namespace (or warehouse) does not exist. */
  UNKNOWN_NAMESPACE(18, false),
  /** A table definition the catalog refuses: its schema, partition spec or properties. */
  INVALID_TABLE_DEFINITION(19, false),
  /** The table has no such partition (it was never written, or retention expired it). */
  UNKNOWN_PARTITION(20, false),
  /**
   * A row a primary-key table cannot take: a null key column, a value of the wrong type, a partial
   * update leaving out the key or naming an unknown column, or a write the merge engine refuses.
   */
  INVALID_MUTATION(21, false),
  /** A delete on a table whose merge engine keeps the first row of each key. */
  DELETE_NOT_SUPPORTED(22, false),
  /** A key-value request on a table that is not a primary-key table. */
  NOT_A_PRIMARY_KEY_TABLE(23, false),
  /**
   * A snapshot scan id the server does not know (finished, expired after a minute idle, or never).
   */
  UNKNOWN_SCAN(24, false),
  /**
   * A stored batch is damaged (its bytes fail their CRC or do not decode: disk damage, since every
   * batch is checked completely before it is stored); the message names the table, partition,
   * bucket and offset. Reading past it needs an operator.
   */
  CORRUPT_BATCH(25, false),
  /**
   * The server holds its limit of partly received request bytes of all connections together ({@code
   * rpc.max-buffered-request-bytes}); it drops the request and closes the connection. The same
   * request may succeed later on a new connection.
   */
  SERVER_BUSY(26, true),
  /**
   * A writer's batch whose sequence is below the writer's last one for the bucket and older than
   * the last 5 the server remembers: a resend of a batch the server stored earlier (writers send
   * their sequences in order and the server takes them only in order), whose offsets it no longer
   * knows. Nothing was written. Before this code the server answered {@link
   * #OUT_OF_ORDER_SEQUENCE}, which now means only a sequence that skips ahead.
   */
  DUPLICATE_SEQUENCE(27, false);

  private final short code;
  private final boolean retriable;

  ErrorCode(int code, boolean retriable) {
    this.code = (short) code;
    this.retriable = retriable;
  }

  /**
   * The code's number on the wire.
   *
   * @return the number, which never changes meaning
   */
  public short code() {
    return code;
  }

  /**
   * Whether the same request may succeed later (on a new connection for {@link #NETWORK_ERROR} and
   * {@link #SERVER_BUSY}).
   *
   * @return {@code true} for transient conditions
   */
  public boolean retriable() {
    return retriable;
  }

  /**
   * The error of a wire code; unknown codes read as {@link #UNKNOWN_SERVER_ERROR}.
   *
   * @param code a code read from a response frame
   * @return the error
   */
  public static ErrorCode forCode(short code) {
    for (ErrorCode error : values()) {
      if (error.code == code) {
        return error;
      }
    }
    return UNKNOWN_SERVER_ERROR;
  }
}
