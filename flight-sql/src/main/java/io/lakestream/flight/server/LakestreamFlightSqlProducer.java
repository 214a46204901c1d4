package io.lakestream.flight.server;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.query.FlightErrors;
import io.lakestream.flight.query.QueryEngine;
import io.lakestream.flight.query.QueryResult;
import io.lakestream.flight.scan.LakestreamTables;
import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.write.FlightIngest;
import io.lakestream.flight.write.IngestHeaders;
import io.lakestream.flight.write.SqlWrite;
import io.lakestream.flight.write.SqlWrites;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Lakestream's Flight SQL service: queries and prepared statements run by {@link QueryEngine},
 * metadata from the catalog, all checked against the caller's read grants.
 *
 * <p>A query runs when the client asks for its {@code FlightInfo} (that is when it "starts": it
 * sees every row acknowledged before then); its result waits, under a one-time ticket, for the
 * client to fetch it, and is dropped if not fetched within {@code resultTimeout}. Thread safe.
 */
public final class LakestreamFlightSqlProducer extends NoOpFlightSqlProducer {
  private final QueryEngine engine;
  private final FlightIngest ingest;
  private final SqlWrites writes;
  private final LakestreamTables tables;
  private final FlightSqlAccess access;
  private final BufferAllocator allocator;
  private final Duration resultTimeout;
  private final Clock clock;
  private final SqlInfoBuilder sqlInfo;
  private final ResultStreams streams;
  private final UpdateCalls updates;
  private final MetadataCommands metadata;
  private final Map<ByteString, PreparedQuery> prepared = new ConcurrentHashMap<>();
  private final Map<ByteString, PreparedWrite> preparedWrites = new ConcurrentHashMap<>();
  private final Map<ByteString, PendingResult> results = new ConcurrentHashMap<>();
  // Results being streamed, by statement handle, so that CancelFlightInfo can reach them.
  private final Map<ByteString, PendingResult> streaming = new ConcurrentHashMap<>();

  /** A prepared statement: its query, owner and the parameters bound last. */
  private record PreparedQuery(
      String sql,
      String principal,
      QueryEngine.Shape shape,
      AtomicReference<List<Object>> parameters) {}

  /** A prepared SQL write (DDL, INSERT of a query or VALUES, DELETE), run on each execution. */
  record PreparedWrite(SqlWrite write, String principal) {}

  /** A started query waiting for its ticket to be redeemed. */
  private record PendingResult(QueryResult result, String principal, Instant started) {}

  LakestreamFlightSqlProducer(
      QueryEngine engine,
      FlightIngest ingest,
      SqlWrites writes,
      LakestreamTables tables,
      FlightSqlAccess access,
      BufferAllocator allocator,
      Duration resultTimeout,
      Clock clock,
      String version) {
    this.engine = requireNonNull(engine, "engine is null");
    this.ingest = requireNonNull(ingest, "ingest is null");
    this.writes = requireNonNull(writes, "writes is null");
    this.tables = requireNonNull(tables, "tables is null");
    this.access = requireNonNull(access, "access is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.resultTimeout = requireNonNull(resultTimeout, "resultTimeout is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.metadata = new MetadataCommands(tables, access, allocator);
    this.streams = new ResultStreams(resultTimeout);
    this.updates = new UpdateCalls(writes, allocator);
    this.sqlInfo =
        new SqlInfoBuilder()
            .withFlightSqlServerName("Lakestream")
            .withFlightSqlServerVersion(version)
            .withFlightSqlServerArrowVersion(Schema.class.getPackage().getImplementationVersion())
            .withFlightSqlServerReadOnly(false)
            .withFlightSqlServerBulkIngestion(true)
            .withFlightSqlServerBulkIngestionTransaction(false)
            .withSqlIdentifierQuoteChar("\"");
  }

  // ---- queries

  @Override
  public FlightInfo getFlightInfoStatement(
      FlightSql.CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return guarded(
        () ->
            start(
                command.getQuery(),
                List.of(),
                principal(context),
                descriptor,
                ResultStreams.callGone(context)));
  }

  @Override
  public SchemaResult getSchemaStatement(
      FlightSql.CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return guarded(
        () ->
            new SchemaResult(
                engine
                    .shape(command.getQuery(), principal(context), ResultStreams.callGone(context))
                    .dataset()));
  }

  @Override
  public void getStreamStatement(
      FlightSql.TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    PendingResult pending = results.get(ticket.getStatementHandle());
    // Another principal's ticket leaves the result to its owner: taking it out first would let
    // anyone who saw a ticket discard someone else's result.
    if (pending == null
        || !pending.principal().equals(principal(context))
        || !results.remove(ticket.getStatementHandle(), pending)) {
      listener.error(
          CallStatus.NOT_FOUND
              .withDescription("No query result under this ticket: fetched already or expired")
              .toRuntimeException());
      return;
    }
    streaming.put(ticket.getStatementHandle(), pending);
    pending.result().follow(ResultStreams.callGone(listener));
    streams.stream(
        pending.result(), listener, () -> streaming.remove(ticket.getStatementHandle(), pending));
  }

  /**
   * Cancels a query by its FlightInfo (Flight's {@code CancelFlightInfo}): a result not yet fetched
   * is dropped, and a result being streamed stops with {@code CANCELLED} at its next batch, DuckDB
   * interrupting the batch it computes. Only the principal who started a query may cancel it.
   */
  @Override
  public void cancelFlightInfo(
      CancelFlightInfoRequest request, CallContext context, StreamListener<CancelStatus> listener) {
    String principal = principal(context);
    CancelStatus status = CancelStatus.NOT_CANCELLABLE;
    for (FlightEndpoint endpoint : request.getInfo().getEndpoints()) {
      ByteString handle = statementHandle(endpoint.getTicket());
      if (handle == null) {
        continue;
      }
      PendingResult pending = results.get(handle);
      if (pending != null
          && pending.principal().equals(principal)
          && results.remove(handle, pending)) {
        pending.result().close();
        status = CancelStatus.CANCELLED;
        continue;
      }
      PendingResult running = streaming.get(handle);
      if (running != null && running.principal().equals(principal)) {
        running.result().cancel();
        status = CancelStatus.CANCELLED;
      }
    }
    listener.onNext(status);
    listener.onCompleted();
  }

  /** The statement handle a query ticket carries, or null for another kind of ticket. */
  private static ByteString statementHandle(Ticket ticket) {
    try {
      Any any = Any.parseFrom(ticket.getBytes());
      return any.is(FlightSql.TicketStatementQuery.class)
          ? any.unpack(FlightSql.TicketStatementQuery.class).getStatementHandle()
          : null;
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      return null;
    }
  }

  @Override
  public void createPreparedStatement(
      FlightSql.ActionCreatePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    FlightErrors.answering(
        listener,
        () -> {
          String principal = principal(context);
          SqlWrite write = SqlWrites.parse(request.getQuery());
          if (write != null && !UpdateCalls.isParameterizedInsert(write)) {
            Schema parameters = writes.parameters(write, principal);
            ByteString handle = newHandle();
            preparedWrites.put(handle, new PreparedWrite(write, principal));
            FlightSql.ActionCreatePreparedStatementResult.Builder result =
                FlightSql.ActionCreatePreparedStatementResult.newBuilder()
                    .setPreparedStatementHandle(handle);
            if (!parameters.getFields().isEmpty()) {
              result.setParameterSchema(ByteString.copyFrom(parameters.serializeAsMessage()));
            }
            listener.onNext(new Result(Any.pack(result.build()).toByteArray()));
            listener.onCompleted();
            return;
          }
          if (write != null) {
            listener.onNext(
                new Result(
                    Any.pack(
                            ingest.prepareInsert(
                                request.getQuery(), principal, idempotencyKey(context)))
                        .toByteArray()));
            listener.onCompleted();
            return;
          }
          QueryEngine.Shape shape =
              engine.shape(request.getQuery(), principal, ResultStreams.callGone(context));
          ByteString handle = newHandle();
          prepared.put(
              handle,
              new PreparedQuery(
                  request.getQuery(), principal, shape, new AtomicReference<>(List.of())));
          FlightSql.ActionCreatePreparedStatementResult result =
              FlightSql.ActionCreatePreparedStatementResult.newBuilder()
                  .setPreparedStatementHandle(handle)
                  .setDatasetSchema(ByteString.copyFrom(shape.dataset().serializeAsMessage()))
                  .setParameterSchema(ByteString.copyFrom(shape.parameters().serializeAsMessage()))
                  .build();
          listener.onNext(new Result(Any.pack(result).toByteArray()));
          listener.onCompleted();
        });
  }

  @Override
  public void closePreparedStatement(
      FlightSql.ActionClosePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    prepared.remove(request.getPreparedStatementHandle());
    preparedWrites.remove(request.getPreparedStatementHandle());
    ingest.closePrepared(request.getPreparedStatementHandle());
    listener.onCompleted();
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      FlightStream stream,
      StreamListener<PutResult> listener) {
    return () ->
        FlightErrors.answering(
            listener,
            () -> {
              PreparedQuery query = preparedQuery(command.getPreparedStatementHandle(), context);
              List<Object> values = null;
              while (stream.next()) {
                VectorSchemaRoot root = stream.getRoot();
                if (root.getRowCount() == 0) {
                  continue;
                }
                if (values != null || root.getRowCount() > 1) {
                  throw new InvalidQueryException(
                      "Binding several rows of parameters to a query is not supported; bind one");
                }
                values = UpdateCalls.parameterRow(root, 0);
              }
              query.parameters().set(values == null ? List.of() : values);
              listener.onCompleted();
            });
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      FlightDescriptor descriptor) {
    return guarded(
        () -> {
          PreparedQuery query = preparedQuery(command.getPreparedStatementHandle(), context);
          return start(
              query.sql(),
              query.parameters().get(),
              query.principal(),
              descriptor,
              ResultStreams.callGone(context));
        });
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      FlightDescriptor descriptor) {
    return guarded(
        () ->
            new SchemaResult(
                preparedQuery(command.getPreparedStatementHandle(), context).shape().dataset()));
  }

  @Override
  public void getStreamPreparedStatement(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      ServerStreamListener listener) {
    QueryResult result;
    try {
      PreparedQuery query = preparedQuery(command.getPreparedStatementHandle(), context);
      result =
          engine.execute(
              query.sql(),
              query.parameters().get(),
              query.principal(),
              ResultStreams.callGone(listener));
    } catch (RuntimeException e) {
      listener.error(FlightErrors.toFlight(e));
      return;
    }
    stream(result, listener);
  }

  private FlightInfo start(
      String sql,
      List<Object> parameters,
      String principal,
      FlightDescriptor descriptor,
      BooleanSupplier callGone) {
    expireResults();
    ClientConnections.ClientConnection connection = ClientConnections.current();
    QueryResult result = engine.execute(sql, parameters, principal, callGone);
    // The call that started the query ends now, and the one that fetches its result is watched
    // then; until that call comes, the client's connection is: a client that went away (closed,
    // killed, its channel shut down) never fetches the result, which is dropped then.
    result.follow(connection::gone);
    ByteString handle = newHandle();
    PendingResult pending = new PendingResult(result, principal, clock.instant());
    results.put(handle, pending);
    // Stopped (out of time) before anyone fetched it: release it now, not at the result timeout.
    result.onStop(
        () -> {
          if (results.remove(handle, pending)) {
            pending.result().close();
          }
        });
    Ticket ticket =
        new Ticket(
            Any.pack(FlightSql.TicketStatementQuery.newBuilder().setStatementHandle(handle).build())
                .toByteArray());
    return new FlightInfo(result.schema(), descriptor, List.of(new FlightEndpoint(ticket)), -1, -1);
  }

  private void stream(QueryResult result, ServerStreamListener listener) {
    streams.stream(result, listener, () -> {});
  }

  private PreparedQuery preparedQuery(ByteString handle, CallContext context) {
    PreparedQuery query = prepared.get(handle);
    if (query == null || !query.principal().equals(principal(context))) {
      throw CallStatus.NOT_FOUND
          .withDescription("No prepared statement under this handle: closed or never created")
          .toRuntimeException();
    }
    return query;
  }

  private void expireResults() {
    Instant oldest = clock.instant().minus(resultTimeout);
    results
        .entrySet()
        .removeIf(
            entry -> {
              if (entry.getValue().started().isBefore(oldest)) {
                entry.getValue().result().close();
                return true;
              }
              return false;
            });
  }

  // ---- metadata

  @Override
  public FlightInfo getFlightInfoSqlInfo(
      FlightSql.CommandGetSqlInfo command, CallContext context, FlightDescriptor descriptor) {
    return MetadataCommands.info(command, descriptor, Schemas.GET_SQL_INFO_SCHEMA);
  }

  @Override
  public void getStreamSqlInfo(
      FlightSql.CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    sqlInfo.send(command.getInfoList(), listener);
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(
      FlightSql.CommandGetCatalogs command, CallContext context, FlightDescriptor descriptor) {
    return MetadataCommands.info(command, descriptor, Schemas.GET_CATALOGS_SCHEMA);
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    metadata.catalogs(listener);
  }

  @Override
  public FlightInfo getFlightInfoSchemas(
      FlightSql.CommandGetDbSchemas command, CallContext context, FlightDescriptor descriptor) {
    return MetadataCommands.info(command, descriptor, Schemas.GET_SCHEMAS_SCHEMA);
  }

  @Override
  public void getStreamSchemas(
      FlightSql.CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    metadata.schemas(command, principal(context), listener);
  }

  @Override
  public FlightInfo getFlightInfoTables(
      FlightSql.CommandGetTables command, CallContext context, FlightDescriptor descriptor) {
    return MetadataCommands.info(
        command,
        descriptor,
        command.getIncludeSchema()
            ? Schemas.GET_TABLES_SCHEMA
            : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA);
  }

  @Override
  public void getStreamTables(
      FlightSql.CommandGetTables command, CallContext context, ServerStreamListener listener) {
    metadata.tables(command, principal(context), listener);
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(
      FlightSql.CommandGetTableTypes command, CallContext context, FlightDescriptor descriptor) {
    return MetadataCommands.info(command, descriptor, Schemas.GET_TABLE_TYPES_SCHEMA);
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    metadata.tableTypes(listener);
  }

  @Override
  public FlightInfo getFlightInfoTypeInfo(
      FlightSql.CommandGetXdbcTypeInfo command, CallContext context, FlightDescriptor descriptor) {
    return MetadataCommands.info(command, descriptor, Schemas.GET_TYPE_INFO_SCHEMA);
  }

  @Override
  public void getStreamTypeInfo(
      FlightSql.CommandGetXdbcTypeInfo command,
      CallContext context,
      ServerStreamListener listener) {
    metadata.typeInfo(command, listener);
  }

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(
      FlightSql.CommandGetPrimaryKeys command, CallContext context, FlightDescriptor descriptor) {
    return MetadataCommands.info(command, descriptor, Schemas.GET_PRIMARY_KEYS_SCHEMA);
  }

  @Override
  public void getStreamPrimaryKeys(
      FlightSql.CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    metadata.primaryKeys(command, principal(context), listener);
  }

  @Override
  public Runnable acceptPutStatement(
      FlightSql.CommandStatementUpdate command,
      CallContext context,
      FlightStream stream,
      StreamListener<PutResult> listener) {
    return updates.update(command.getQuery(), principal(context), listener);
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      FlightSql.CommandPreparedStatementUpdate command,
      CallContext context,
      FlightStream stream,
      StreamListener<PutResult> listener) {
    PreparedWrite write = preparedWrites.get(command.getPreparedStatementHandle());
    if (write != null) {
      return updates.updatePrepared(write, principal(context), stream, listener);
    }
    return ingest.acceptPreparedInsert(
        command, principal(context), idempotencyKey(context), stream, listener);
  }

  @Override
  public Runnable acceptPutStatementBulkIngest(
      FlightSql.CommandStatementIngest command,
      CallContext context,
      FlightStream stream,
      StreamListener<PutResult> listener) {
    return ingest.acceptStatementIngest(
        command, principal(context), idempotencyKey(context), stream, listener);
  }

  /** Flight SQL commands as Flight SQL routes them; a path descriptor is a plain ingest. */
  @Override
  public Runnable acceptPut(
      CallContext context, FlightStream stream, StreamListener<PutResult> listener) {
    FlightDescriptor descriptor = stream.getDescriptor();
    if (!descriptor.isCommand()) {
      return ingest.acceptPath(
          descriptor, principal(context), idempotencyKey(context), stream, listener);
    }
    return super.acceptPut(context, stream, listener);
  }

  private static String idempotencyKey(CallContext context) {
    IngestHeaders headers = context.getMiddleware(IngestHeaders.KEY);
    return headers == null ? null : headers.idempotencyKey();
  }

  /** A SQL LIKE pattern ({@code %}, {@code _}, {@code \} escapes) as a regular expression. */
  public static Pattern like(boolean present, String pattern) {
    if (!present) {
      return Pattern.compile("(?s).*");
    }
    StringBuilder regex = new StringBuilder("(?s)");
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }

  private String principal(CallContext context) {
    String identity = context.peerIdentity();
    return identity == null ? "" : identity;
  }

  private static ByteString newHandle() {
    return ByteString.copyFromUtf8(UUID.randomUUID().toString());
  }

  private interface Call<T> {
    T run();
  }

  private static <T> T guarded(Call<T> call) {
    try {
      return call.run();
    } catch (RuntimeException e) {
      throw FlightErrors.toFlight(e);
    }
  }

  @Override
  public void close() {
    results.values().forEach(pending -> pending.result().close());
    results.clear();
    prepared.clear();
    engine.close();
  }
}
