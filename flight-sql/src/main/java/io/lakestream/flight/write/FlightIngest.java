package io.lakestream.flight.write;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.ByteString;
import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.query.FlightErrors;
import io.lakestream.flight.scan.LakestreamTables;
import io.lakestream.flight.sql.TableReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * Appends Arrow batches a Flight client sends ({@code DoPut}: Flight SQL bulk ingest, a prepared
 * {@code INSERT}, or a plain Flight path descriptor) to a log table, through the stream RPC as the
 * Java client's writers do: the call is acknowledged only once every row is durable. Flight SQL
 * bulk ingest may also create a missing log table; primary-key and plain Iceberg tables are
 * refused.
 *
 * <p><b>Checks before writing.</b> The caller needs a write grant on the table's namespace; the
 * table must be a log table; the columns of the first message's schema must match the table's by
 * name and Arrow type, and every required column must be present (missing optional columns are
 * written as nulls). Anything else fails the call before a row is written, with a Flight status
 * whose message names the table or column.
 *
 * <p><b>Idempotence.</b> Each stored batch carries a writer id and sequence 0 (see the stream RPC's
 * deduplication). With an idempotency key the writer id is a hash of the principal, table, key, the
 * batch's position in the call and its encoded bytes, so the same call sent again (the same key and
 * the same batches) maps to the same writer ids and the store answers every batch it already holds
 * as a duplicate instead of appending it again; different batches under a reused key get other ids
 * and are appended. Without a key the writer ids are random (a resend inside the call is still
 * stored once). The store rebuilds writer state from the log after a restart, so a retry after a
 * crash is recognised too.
 *
 * <p>Thread safe.
 */
public final class FlightIngest {
  /** The {@code CommandStatementIngest} option that carries the idempotency key. */
  static final String IDEMPOTENCY_KEY_OPTION = "lakestream.idempotency-key";

  /** The ingest option giving the bucket count of a table the ingest creates. */
  static final String BUCKETS_OPTION = TableDescriptor.BUCKETS;

  /** The ingest option giving the bucket key of a table the ingest creates. */
  static final String BUCKET_KEY_OPTION = TableDescriptor.BUCKET_KEY;

  /** Longest idempotency key accepted. */
  static final int MAX_KEY_LENGTH = 256;

  private final LakestreamTables tables;
  private final Connection streams;
  private final FlightSqlAccess access;
  private final BufferAllocator allocator;

  /** Where rows go: a table of a namespace of a warehouse (by its catalog name). */
  record Target(String warehouse, List<String> namespace, String table) {
    Target {
      requireNonNull(warehouse, "warehouse is null");
      namespace = List.copyOf(namespace);
      requireNonNull(table, "table is null");
    }

    @Override
    public String toString() {
      return warehouse + "." + String.join(".", namespace) + "." + table;
    }
  }

  /**
   * How the columns of the sent batches map to the table's columns.
   *
   * @param columns table columns the sent columns bind to, in sent order; empty to bind by name
   * @param byNameIfNamesMatch with {@code columns}, bind by name instead when every sent column is
   *     named like a distinct table column (a prepared {@code INSERT} without a column list whose
   *     parameters carry the column names, as ADBC's bulk ingest sends)
   */
  record Binding(List<String> columns, boolean byNameIfNamesMatch) {
    static final Binding BY_NAME = new Binding(List.of(), false);

    Binding {
      columns = List.copyOf(columns);
    }
  }

  /**
   * The outcome of an ingest.
   *
   * @param rows rows received
   * @param appendedRows rows appended now
   * @param duplicateRows rows the table held already from an earlier send of the same call
   * @param batches stored batches written or recognised
   */
  record Outcome(long rows, long appendedRows, long duplicateRows, int batches) {
    /** As JSON, for a plain {@code DoPut}'s {@code app_metadata}. */
    String toJson() {
      return "{\"rows\":"
          + rows
          + ",\"appendedRows\":"
          + appendedRows
          + ",\"duplicateRows\":"
          + duplicateRows
          + ",\"batches\":"
          + batches
          + "}";
    }
  }

  /** A resolved, checked log table ready to take batches. */
  record Resolved(Target target, io.lakestream.client.Table table, Schema schema) {}

  public FlightIngest(
      LakestreamTables tables,
      Connection streams,
      FlightSqlAccess access,
      BufferAllocator allocator) {
    this.tables = requireNonNull(tables, "tables is null");
    this.streams = requireNonNull(streams, "streams is null");
    this.access = requireNonNull(access, "access is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  /** Whether the table exists (after the write check), for Flight SQL's table options. */
  boolean exists(Target target, String principal) {
    access.checkWrite(principal, target.warehouse(), target.namespace());
    try {
      tables.load(target.warehouse(), identifier(target));
      return true;
    } catch (NoSuchTableException | NoSuchNamespaceException e) {
      return false;
    }
  }

  /**
   * Checks that the principal may write to the target and that it is a log table.
   *
   * @throws FlightRuntimeException {@code UNAUTHORIZED}, {@code NOT_FOUND}, or {@code
   *     UNIMPLEMENTED} for a primary-key or plain Iceberg table
   */
  Resolved resolve(Target target, String principal) {
    access.checkWrite(principal, target.warehouse(), target.namespace());
    Table table;
    try {
      table = tables.load(target.warehouse(), identifier(target));
    } catch (NoSuchTableException | NoSuchNamespaceException e) {
      throw CallStatus.NOT_FOUND
          .withDescription(
              "Table "
                  + target
                  + " does not exist; ingest appends to an existing log table (create it through"
                  + " the REST catalog or the Java client's Admin first)")
          .toRuntimeException();
    }
    String kind = table.properties().get(LakestreamTables.KIND);
    if (TableKind.PRIMARY_KEY.is(kind)) {
      throw CallStatus.UNIMPLEMENTED
          .withDescription(
              "Table "
                  + target
                  + " is a primary-key table: Flight ingest appends to log tables only; write"
                  + " upserts through the Java client's UpsertWriter")
          .toRuntimeException();
    }
    if (!TableKind.LOG.is(kind)) {
      throw CallStatus.UNIMPLEMENTED
          .withDescription(
              "Table "
                  + target
                  + " is a plain Iceberg table: Flight ingest appends to streaming log tables only")
          .toRuntimeException();
    }
    io.lakestream.client.Table stream;
    try {
      stream = streams.table(tables.path(target.warehouse(), target.namespace(), target.table()));
    } catch (RpcException e) {
      throw toFlight(e, target);
    }
    return new Resolved(target, stream, stream.arrowSchema(stream.schemaId()));
  }

  /**
   * Appends every batch of {@code stream} to the table and returns once all are durable.
   *
   * @param idempotencyKey names the call for retries, or null
   * @throws FlightRuntimeException with a status that fits; batches before a bad one may be stored
   *     (a retry with the same key stores them once)
   */
  Outcome ingest(
      Resolved resolved,
      String principal,
      String idempotencyKey,
      Binding binding,
      FlightStream stream) {
    Schema sent = stream.getSchema();
    int[] sources = IngestSchemas.bind(resolved, sent, binding);
    IngestWriter writer =
        new IngestWriter(resolved, principal, checkKey(idempotencyKey), sources, allocator);
    RuntimeException failure = null;
    try {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        if (root.getRowCount() > 0) {
          writer.write(root);
        }
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    return writer.await(failure);
  }

  // ---- the Flight calls

  /**
   * A prepared {@code INSERT}: where its parameter batches go, who prepared it, and the idempotency
   * key header sent with the request that prepared it (or null).
   */
  private record PreparedInsert(
      Target target, String principal, Binding binding, String idempotencyKey) {}

  private final Map<ByteString, PreparedInsert> prepared = new ConcurrentHashMap<>();

  /**
   * Flight SQL bulk ingest ({@code CommandStatementIngest}). {@code if_exists} APPEND (or
   * unspecified) appends, FAIL refuses an existing table ({@code ALREADY_EXISTS}), REPLACE is
   * refused; a missing table is {@code NOT_FOUND}, or created as a log table of the sent schema
   * when the client asks for it ({@code if_not_exist} CREATE; see {@link #createLogTable}).
   * Temporary tables and transactions are refused. The idempotency key comes from the option
   * {@value #IDEMPOTENCY_KEY_OPTION} or the request header.
   */
  public Runnable acceptStatementIngest(
      FlightSql.CommandStatementIngest command,
      String principal,
      String headerKey,
      FlightStream stream,
      FlightProducer.StreamListener<PutResult> listener) {
    return () ->
        FlightErrors.answering(
            listener,
            () -> {
              if (command.getTemporary()) {
                throw CallStatus.UNIMPLEMENTED
                    .withDescription("Ingest into temporary tables is not supported")
                    .toRuntimeException();
              }
              if (command.hasTransactionId()) {
                throw CallStatus.UNIMPLEMENTED
                    .withDescription(
                        "Transactions are not supported: ingest without a transaction id (use the"
                            + " option "
                            + IDEMPOTENCY_KEY_OPTION
                            + " to make retries safe)")
                    .toRuntimeException();
              }
              if (!command.hasSchema() || command.getSchema().isEmpty()) {
                throw invalid("Name the schema (namespace) of ingest table " + command.getTable());
              }
              Target target =
                  new Target(
                      tables.warehouse(
                          command.hasCatalog() ? command.getCatalog() : "", command.getTable()),
                      List.of(command.getSchema().split("\\.")),
                      command.getTable());
              FlightSql.CommandStatementIngest.TableDefinitionOptions options =
                  command.getTableDefinitionOptions();
              switch (options.getIfExists()) {
                case TABLE_EXISTS_OPTION_REPLACE ->
                    throw CallStatus.UNIMPLEMENTED
                        .withDescription(
                            "Replacing table "
                                + target
                                + " is not supported: ingest appends (if_exists=APPEND)")
                        .toRuntimeException();
                case TABLE_EXISTS_OPTION_FAIL -> {
                  if (exists(target, principal)) {
                    throw CallStatus.ALREADY_EXISTS
                        .withDescription(
                            "Table "
                                + target
                                + " exists and the ingest asked to fail if it does (if_exists=FAIL);"
                                + " append with if_exists=APPEND")
                        .toRuntimeException();
                  }
                }
                default -> {}
              }
              if (options.getIfNotExist()
                      == FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption
                          .TABLE_NOT_EXIST_OPTION_CREATE
                  && !exists(target, principal)) {
                createLogTable(target, stream.getSchema(), command.getOptionsMap());
              }
              String optionKey = command.getOptionsMap().get(IDEMPOTENCY_KEY_OPTION);
              if (optionKey != null && headerKey != null && !optionKey.equals(headerKey)) {
                throw invalid(
                    "The option "
                        + IDEMPOTENCY_KEY_OPTION
                        + " and the header "
                        + IngestHeaders.IDEMPOTENCY_KEY
                        + " differ; send one");
              }
              Outcome outcome =
                  ingest(
                      resolve(target, principal),
                      principal,
                      optionKey != null ? optionKey : headerKey,
                      Binding.BY_NAME,
                      stream);
              sendUpdateResult(outcome, listener);
            });
  }

  /**
   * A plain Flight {@code DoPut} whose descriptor is a path: {@code [namespace, table]} (default
   * warehouse) or {@code [warehouse, namespace, table]}; columns bind by name. Answers one {@code
   * PutResult} whose {@code app_metadata} is the {@link Outcome} as JSON.
   */
  public Runnable acceptPath(
      FlightDescriptor descriptor,
      String principal,
      String headerKey,
      FlightStream stream,
      FlightProducer.StreamListener<PutResult> listener) {
    return () ->
        FlightErrors.answering(
            listener,
            () -> {
              List<String> path = descriptor.getPath();
              if (path.size() < 2 || path.size() > 3) {
                throw invalid(
                    "A DoPut path names [namespace, table] or [warehouse, namespace, table], not "
                        + path);
              }
              Target target =
                  new Target(
                      tables.warehouse(path.size() == 3 ? path.get(0) : "", path),
                      List.of(path.get(path.size() - 2).split("\\.")),
                      path.get(path.size() - 1));
              Outcome outcome =
                  ingest(resolve(target, principal), principal, headerKey, Binding.BY_NAME, stream);
              byte[] json = outcome.toJson().getBytes(StandardCharsets.UTF_8);
              try (ArrowBuf buffer = allocator.buffer(json.length)) {
                buffer.writeBytes(json);
                listener.onNext(PutResult.metadata(buffer));
              }
              listener.onCompleted();
            });
  }

  /**
   * Prepares an {@code INSERT} (see {@link InsertStatement}): checks the grant and the table and
   * answers a handle whose parameter schema is the table's columns the statement binds.
   *
   * @param headerKey the idempotency key header of the prepare request, or null: it applies to the
   *     statement's executions that send none of their own (some clients, ADBC's Java driver among
   *     them, send their call headers with the prepare request but not with the execution's {@code
   *     DoPut})
   */
  public FlightSql.ActionCreatePreparedStatementResult prepareInsert(
      String sql, String principal, String headerKey) {
    checkKey(headerKey);
    InsertStatement insert = InsertStatement.parse(sql);
    TableReference table = insert.table();
    Target target =
        new Target(
            tables.warehouse(table.catalog(), table.toString()),
            List.of(table.schema()),
            table.table());
    Resolved resolved = resolve(target, principal);
    List<Field> fields = resolved.schema().getFields();
    List<String> columns = insert.columns();
    boolean byNameIfNamesMatch = false;
    if (columns.isEmpty()) {
      if (insert.parameters() != fields.size()) {
        throw invalid(
            "Table "
                + target
                + " has "
                + fields.size()
                + " columns but the INSERT has "
                + insert.parameters()
                + " values; list the columns it writes");
      }
      columns = fields.stream().map(Field::getName).toList();
      byNameIfNamesMatch = true;
    }
    List<Field> parameters = new ArrayList<>();
    for (String column : columns) {
      parameters.add(
          fields.stream()
              .filter(field -> field.getName().equals(column))
              .findFirst()
              .orElseThrow(() -> invalid("Column " + column + " is not a column of " + target)));
    }
    ByteString handle = ByteString.copyFromUtf8("insert:" + UUID.randomUUID());
    prepared.put(
        handle,
        new PreparedInsert(target, principal, new Binding(columns, byNameIfNamesMatch), headerKey));
    return FlightSql.ActionCreatePreparedStatementResult.newBuilder()
        .setPreparedStatementHandle(handle)
        .setDatasetSchema(ByteString.copyFrom(new Schema(List.of()).serializeAsMessage()))
        .setParameterSchema(ByteString.copyFrom(new Schema(parameters).serializeAsMessage()))
        .build();
  }

  /** Forgets a prepared {@code INSERT}; false when the handle is not one. */
  public boolean closePrepared(ByteString handle) {
    return prepared.remove(handle) != null;
  }

  /** Executes a prepared {@code INSERT}: ingests its parameter batches. */
  public Runnable acceptPreparedInsert(
      FlightSql.CommandPreparedStatementUpdate command,
      String principal,
      String headerKey,
      FlightStream stream,
      FlightProducer.StreamListener<PutResult> listener) {
    return () ->
        FlightErrors.answering(
            listener,
            () -> {
              PreparedInsert insert = prepared.get(command.getPreparedStatementHandle());
              if (insert == null || !insert.principal().equals(principal)) {
                throw CallStatus.NOT_FOUND
                    .withDescription(
                        "No prepared statement under this handle: closed or never created")
                    .toRuntimeException();
              }
              Outcome outcome =
                  ingest(
                      resolve(insert.target(), principal),
                      principal,
                      headerKey != null ? headerKey : insert.idempotencyKey(),
                      insert.binding(),
                      stream);
              sendUpdateResult(outcome, listener);
            });
  }

  private void sendUpdateResult(
      Outcome outcome, FlightProducer.StreamListener<PutResult> listener) {
    byte[] result =
        FlightSql.DoPutUpdateResult.newBuilder()
            .setRecordCount(outcome.rows())
            .build()
            .toByteArray();
    try (ArrowBuf buffer = allocator.buffer(result.length)) {
      buffer.writeBytes(result);
      listener.onNext(PutResult.metadata(buffer));
    }
    listener.onCompleted();
  }

  /**
   * Creates a log table whose columns are the sent schema's (see {@link
   * IngestSchemas#icebergSchema}), with the ingest options {@value #BUCKETS_OPTION} and {@value
   * #BUCKET_KEY_OPTION} as its table properties. A table created meanwhile by someone else is fine
   * (the ingest appends to it). The caller has checked the write grant.
   */
  private void createLogTable(Target target, Schema sent, Map<String, String> options) {
    org.apache.iceberg.Schema schema = IngestSchemas.icebergSchema(sent, target);
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(TableDescriptor.KIND, TableKind.LOG.value());
    for (String option : List.of(BUCKETS_OPTION, BUCKET_KEY_OPTION)) {
      String value = options.get(option);
      if (value != null) {
        properties.put(option, value);
      }
    }
    try {
      streams
          .admin()
          .createTable(
              tables.path(target.warehouse(), target.namespace(), target.table()),
              TableDescriptor.of(schema, properties));
    } catch (RpcException e) {
      if (e.error() != io.lakestream.client.rpc.ErrorCode.ALREADY_EXISTS) {
        throw toFlight(e, target);
      }
    }
  }

  /** The idempotency key, checked, or null. */
  static String checkKey(String key) {
    if (key == null) {
      return null;
    }
    if (key.isBlank() || key.length() > MAX_KEY_LENGTH) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "The idempotency key must be 1 to " + MAX_KEY_LENGTH + " characters, not blank")
          .toRuntimeException();
    }
    return key;
  }

  static FlightRuntimeException invalid(String message) {
    return CallStatus.INVALID_ARGUMENT.withDescription(message).toRuntimeException();
  }

  private static TableIdentifier identifier(Target target) {
    return TableIdentifier.of(
        Namespace.of(target.namespace().toArray(String[]::new)), target.table());
  }

  /** A stream RPC failure as a Flight status. */
  static FlightRuntimeException toFlight(RpcException e, Object target) {
    CallStatus status =
        switch (e.error()) {
          case UNKNOWN_TABLE, UNKNOWN_NAMESPACE, UNKNOWN_PARTITION -> CallStatus.NOT_FOUND;
          case NOT_AUTHENTICATED -> CallStatus.UNAUTHENTICATED;
          case NOT_AUTHORIZED -> CallStatus.UNAUTHORIZED;
          case ALREADY_EXISTS -> CallStatus.ALREADY_EXISTS;
          case INVALID_BATCH,
              INVALID_REQUEST,
              INVALID_TABLE_DEFINITION,
              SCHEMA_MISMATCH,
              REQUEST_TOO_LARGE,
              NOT_A_LOG_TABLE,
              OUT_OF_ORDER_SEQUENCE,
              DUPLICATE_SEQUENCE ->
              CallStatus.INVALID_ARGUMENT;
          case STORAGE_ERROR, SERVER_SHUTTING_DOWN, NETWORK_ERROR -> CallStatus.UNAVAILABLE;
          default -> CallStatus.INTERNAL;
        };
    return status
        .withDescription("Ingest into " + target + " failed: " + e.getMessage())
        .withCause(e)
        .toRuntimeException();
  }
}
