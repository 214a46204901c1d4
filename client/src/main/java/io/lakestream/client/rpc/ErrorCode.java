package io.lakestream.client.rpc;

/**
 * Error codes of the stream RPC. A code's number and meaning never change; new conditions get new
 * numbers. {@link #retriable()} tells a client whether the same request may succeed later.
 */
public enum ErrorCode {
  NONE(0, false),
  UNKNOWN_SERVER_ERROR(1, false),
  UNKNOWN_TABLE(2, false),
  UNKNOWN_BUCKET(3, false),
  OFFSET_OUT_OF_RANGE(4, false),
  INVALID_BATCH(5, false),
  /** A writer's batch whose sequence skips ahead of the writer's last one for the bucket. */
  OUT_OF_ORDER_SEQUENCE(6, false),
  NOT_AUTHENTICATED(7, false),
  NOT_AUTHORIZED(8, false),
  REQUEST_TOO_LARGE(9, false),
  UNSUPPORTED_VERSION(10, false),
  INVALID_REQUEST(11, false),
  SCHEMA_MISMATCH(12, false),
  STORAGE_ERROR(13, true),
  NOT_A_LOG_TABLE(14, false),
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

  public short code() {
    return code;
  }

  public boolean retriable() {
    return retriable;
  }

  /** The error of a wire code; unknown codes read as {@link #UNKNOWN_SERVER_ERROR}. */
  public static ErrorCode forCode(short code) {
    for (ErrorCode error : values()) {
      if (error.code == code) {
        return error;
      }
    }
    return UNKNOWN_SERVER_ERROR;
  }
}
