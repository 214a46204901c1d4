package io.lakestream.flight.write;

import static io.lakestream.flight.scan.LakeViews.quote;
import static java.util.Objects.requireNonNull;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.query.QueryEngine;
import io.lakestream.flight.query.QueryLimitException;
import io.lakestream.flight.query.QueryResult;
import io.lakestream.flight.scan.LakestreamTables;
import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.sql.SqlTokens;
import io.lakestream.flight.sql.TableReference;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Runs SQL writes ({@link SqlWrite}) through the same paths as every other client: tables are
 * created and dropped through the catalog, rows go through the stream client's writers, and a write
 * is acknowledged once its rows are durable.
 *
 * <ul>
 *   <li>{@code CREATE TABLE}: a primary-key table when the columns have a {@code PRIMARY KEY}, a
 *       log table otherwise ({@code lakestream.kind} set accordingly unless {@code WITH} sets it);
 *       other {@code WITH} properties become table properties, which the catalog checks as it does
 *       for any client.
 *   <li>{@code INSERT}: the source (a query over any tables, or {@code VALUES}) runs in the SQL
 *       engine, cast to the target columns' types; unnamed columns are null. Every row is read and
 *       converted before the first is written, so a bad value writes nothing. Log tables append,
 *       primary-key tables upsert.
 *   <li>{@code DELETE}: primary-key tables only; the keys of the rows matching the condition (read
 *       like a query, so the union of lake and log) are deleted.
 *   <li>{@code UPDATE}: primary-key tables only; the rows the condition selects are read with the
 *       assigned values and upserted.
 * </ul>
 *
 * <p>{@code DELETE} and {@code UPDATE} take parameters ({@code ?}) where a query would: they are
 * numbered in the order written, so the query behind the statement binds them the same way.
 */
public final class SqlWrites {
  /** Rows one statement may write; more should use bulk ingest. */
  static final int MAX_ROWS = 1_000_000;

  private final QueryEngine engine;
  private final LakestreamTables tables;
  private final FlightSqlAccess access;
  private final Connection streams;

  public SqlWrites(
      QueryEngine engine, LakestreamTables tables, FlightSqlAccess access, Connection streams) {
    this.engine = requireNonNull(engine, "engine is null");
    this.tables = requireNonNull(tables, "tables is null");
    this.access = requireNonNull(access, "access is null");
    this.streams = requireNonNull(streams, "streams is null");
  }

  /** The statement as a write, or null when it is a query. */
  public static SqlWrite parse(String sql) {
    if (!new SqlTokens(sql).keyword().equals("CREATE")) {
      return SqlWrite.parse(null, sql).orElse(null); // only CREATE TABLE needs DuckDB to parse
    }
    try (java.sql.Connection duckdb = DriverManager.getConnection("jdbc:duckdb:")) {
      return SqlWrite.parse(duckdb, sql).orElse(null);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot start DuckDB to parse a statement", e);
    }
  }

  /**
   * Runs a write.
   *
   * @return the rows written or deleted (0 for DDL)
   */
  public long run(SqlWrite write, String principal) {
    return run(write, List.of(), principal);
  }

  /**
   * Runs a write whose {@code DELETE} condition or {@code UPDATE} values and condition take
   * parameters ({@code ?}), bound to {@code parameters} in the order they appear.
   *
   * @return the rows written or deleted (0 for DDL)
   * @throws InvalidQueryException when the parameters do not match the statement's
   */
  public long run(SqlWrite write, List<Object> parameters, String principal) {
    String warehouse = tables.warehouse(write.table().catalog(), write.table());
    TableIdentifier identifier = TableIdentifier.of(write.table().schema(), write.table().table());
    access.checkWrite(principal, warehouse, List.of(write.table().schema()));
    if (!parameters.isEmpty()
        && !(write instanceof SqlWrite.Delete || write instanceof SqlWrite.Update)) {
      throw new InvalidQueryException(
          "Only DELETE and UPDATE statements take parameters here; this one takes none");
    }
    return switch (write) {
      case SqlWrite.CreateTable create -> create(warehouse, identifier, create);
      case SqlWrite.DropTable drop -> drop(warehouse, identifier, drop);
      case SqlWrite.Insert insert -> insert(warehouse, identifier, insert, principal);
      case SqlWrite.Delete delete -> delete(warehouse, identifier, delete, parameters, principal);
      case SqlWrite.Update update -> update(warehouse, identifier, update, parameters, principal);
    };
  }

  /**
   * The parameters ({@code ?}) a {@code DELETE} or {@code UPDATE} takes, typed as the SQL engine
   * infers them from where they stand; an empty schema for every other write.
   */
  public org.apache.arrow.vector.types.pojo.Schema parameters(SqlWrite write, String principal) {
    String query =
        switch (write) {
          case SqlWrite.Delete delete -> deleteQuery(keyedTable(delete.table(), "DELETE"), delete);
          case SqlWrite.Update update -> updateQuery(keyedTable(update.table(), "UPDATE"), update);
          default -> null;
        };
    if (query == null) {
      return new org.apache.arrow.vector.types.pojo.Schema(List.of());
    }
    String warehouse = tables.warehouse(write.table().catalog(), write.table());
    access.checkWrite(principal, warehouse, List.of(write.table().schema()));
    return engine.shape(query, principal).parameters();
  }

  private long create(String warehouse, TableIdentifier identifier, SqlWrite.CreateTable create) {
    Map<String, String> properties = new HashMap<>(create.properties());
    boolean keyed = !create.schema().identifierFieldIds().isEmpty();
    String kind =
        properties.computeIfAbsent(
            LakestreamTables.KIND, k -> (keyed ? TableKind.PRIMARY_KEY : TableKind.LOG).value());
    if (TableKind.PRIMARY_KEY.is(kind) != keyed) {
      throw new InvalidQueryException(
          keyed
              ? "A table with a PRIMARY KEY is a primary-key table, not lakestream.kind=" + kind
              : "A primary-key table needs a PRIMARY KEY");
    }
    try {
      streams
          .admin()
          .createTable(
              path(warehouse, identifier),
              create.spec().isUnpartitioned()
                  ? TableDescriptor.of(create.schema(), properties)
                  : TableDescriptor.of(create.schema(), properties)
                      .withPartitionSpecJson(PartitionSpecParser.toJson(create.spec())));
    } catch (RpcException e) {
      if (e.error() != ErrorCode.ALREADY_EXISTS || !create.ifNotExists()) {
        throw rpcError(e, create.table());
      }
    }
    return 0;
  }

  private long drop(String warehouse, TableIdentifier identifier, SqlWrite.DropTable drop) {
    boolean dropped;
    try {
      dropped = streams.admin().dropTable(path(warehouse, identifier));
    } catch (RpcException e) {
      throw rpcError(e, drop.table());
    }
    if (!dropped && !drop.ifExists()) {
      throw CallStatus.NOT_FOUND
          .withDescription(
              "Table " + drop.table() + " does not exist (warehouse " + warehouse + ")")
          .toRuntimeException();
    }
    return 0;
  }

  private Table streamTable(String warehouse, TableIdentifier identifier, TableReference name) {
    Table table;
    try {
      table = tables.load(warehouse, identifier);
    } catch (NoSuchTableException e) {
      throw new InvalidQueryException(
          "Table " + name + " does not exist (warehouse " + warehouse + ")", e);
    }
    if (!LakestreamTables.isStream(table)) {
      throw new InvalidQueryException(
          "Table "
              + name
              + " is a plain Iceberg table; SQL writes go to log and primary-key tables");
    }
    return table;
  }

  private long insert(
      String warehouse, TableIdentifier identifier, SqlWrite.Insert insert, String principal) {
    Table table = streamTable(warehouse, identifier, insert.table());
    Schema schema = table.schema();
    List<String> targets = targetColumns(schema, insert);
    int sourceColumns = engine.shape(insert.source(), principal).dataset().getFields().size();
    if (sourceColumns != targets.size()) {
      throw new InvalidQueryException(
          "INSERT into "
              + insert.table()
              + " gives "
              + sourceColumns
              + " values per row for "
              + targets.size()
              + " columns");
    }
    StringBuilder select = new StringBuilder("SELECT ");
    StringBuilder aliases = new StringBuilder();
    for (int i = 0; i < sourceColumns; i++) {
      aliases.append(i == 0 ? "" : ", ").append("c").append(i);
    }
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      int source = targets.indexOf(column.name());
      if (source < 0 && column.isRequired()) {
        throw new InvalidQueryException(
            "INSERT into "
                + insert.table()
                + " leaves out column "
                + column.name()
                + ", which is NOT NULL");
      }
      select
          .append(i == 0 ? "" : ", ")
          .append("CAST(")
          .append(source < 0 ? "NULL" : "src.c" + source)
          .append(" AS ")
          .append(duckDbType(column))
          .append(")");
    }
    select
        .append(" FROM (")
        .append(insert.source())
        .append(") AS src(")
        .append(aliases)
        .append(")");
    List<Object[]> rows = read(select.toString(), List.of(), principal, columns);
    try {
      io.lakestream.client.Table stream = streams.table(path(warehouse, identifier));
      if (TableKind.PRIMARY_KEY.is(table.properties().get(LakestreamTables.KIND))) {
        try (UpsertWriter writer = stream.newUpsertWriter()) {
          rows.forEach(writer::upsert);
          writer.flush();
        }
      } else {
        try (AppendWriter writer = stream.newAppendWriter()) {
          rows.forEach(writer::append);
          writer.flush();
        }
      }
    } catch (RpcException e) {
      throw rpcError(e, insert.table());
    }
    return rows.size();
  }

  private long delete(
      String warehouse,
      TableIdentifier identifier,
      SqlWrite.Delete delete,
      List<Object> parameters,
      String principal) {
    Table table = keyedTable(warehouse, identifier, delete.table(), "DELETE");
    List<Object[]> keys =
        read(deleteQuery(table, delete), parameters, principal, keyColumns(table.schema()));
    try (UpsertWriter writer = streams.table(path(warehouse, identifier)).newUpsertWriter()) {
      keys.forEach(writer::delete);
      writer.flush();
    } catch (RpcException e) {
      throw rpcError(e, delete.table());
    }
    return keys.size();
  }

  /** The query that selects the keys a DELETE removes, its parameters numbered in order. */
  private static String deleteQuery(Table table, SqlWrite.Delete delete) {
    String qualifier = delete.alias().isEmpty() ? "" : quote(delete.alias()) + ".";
    StringBuilder select = new StringBuilder("SELECT ");
    List<Types.NestedField> key = keyColumns(table.schema());
    for (int i = 0; i < key.size(); i++) {
      select.append(i == 0 ? "" : ", ").append(qualifier).append(quote(key.get(i).name()));
    }
    appendFromWhere(
        select,
        delete.table(),
        delete.alias(),
        SqlTokens.numberParameters(delete.where(), 1).text());
    return select.toString();
  }

  private static List<Types.NestedField> keyColumns(Schema schema) {
    List<Types.NestedField> key = new ArrayList<>();
    for (Types.NestedField column : schema.columns()) {
      if (schema.identifierFieldIds().contains(column.fieldId())) {
        key.add(column);
      }
    }
    return key;
  }

  /** A primary-key table that {@code statement} (DELETE or UPDATE) writes to. */
  private Table keyedTable(TableReference name, String statement) {
    String warehouse = tables.warehouse(name.catalog(), name);
    return keyedTable(warehouse, TableIdentifier.of(name.schema(), name.table()), name, statement);
  }

  private Table keyedTable(
      String warehouse, TableIdentifier identifier, TableReference name, String statement) {
    Table table = streamTable(warehouse, identifier, name);
    if (!TableKind.PRIMARY_KEY.is(table.properties().get(LakestreamTables.KIND))) {
      throw new InvalidQueryException(
          statement + " needs a primary-key table; " + name + " is an append-only log table");
    }
    return table;
  }

  /**
   * Rewrites the rows the condition selects with the assigned values and upserts them: one query
   * over the union read computes the new rows (every column, the assigned ones cast to their
   * types), all are read and checked before the first is written. A primary-key column cannot be
   * assigned (that would be another row); a concurrent write to a selected row between the read and
   * the upsert is overwritten, as with any read-modify-write client.
   */
  private long update(
      String warehouse,
      TableIdentifier identifier,
      SqlWrite.Update update,
      List<Object> parameters,
      String principal) {
    Table table = keyedTable(warehouse, identifier, update.table(), "UPDATE");
    List<Object[]> rows =
        read(updateQuery(table, update), parameters, principal, table.schema().columns());
    try (UpsertWriter writer = streams.table(path(warehouse, identifier)).newUpsertWriter()) {
      rows.forEach(writer::upsert);
      writer.flush();
    } catch (RpcException e) {
      throw rpcError(e, update.table());
    }
    return rows.size();
  }

  /**
   * The query that computes the rows an UPDATE writes: every column, the assigned ones cast to
   * their types; its parameters are numbered in the order they appear in the statement.
   */
  private static String updateQuery(Table table, SqlWrite.Update update) {
    Schema schema = table.schema();
    Map<String, String> values = new HashMap<>();
    int nextParameter = 1;
    for (Map.Entry<String, String> assignment : update.assignments().entrySet()) {
      Types.NestedField column = schema.caseInsensitiveFindField(assignment.getKey());
      if (column == null) {
        throw new InvalidQueryException(
            "Table " + update.table() + " has no column " + assignment.getKey());
      }
      if (schema.identifierFieldIds().contains(column.fieldId())) {
        throw new InvalidQueryException(
            "UPDATE cannot change primary-key column "
                + column.name()
                + "; DELETE the row and INSERT it with the new key");
      }
      SqlTokens.Numbered value = SqlTokens.numberParameters(assignment.getValue(), nextParameter);
      nextParameter += value.count();
      values.put(column.name(), value.text());
    }
    String qualifier = update.alias().isEmpty() ? "" : quote(update.alias()) + ".";
    StringBuilder select = new StringBuilder("SELECT ");
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      String value = values.get(column.name());
      select.append(i == 0 ? "" : ", ");
      if (value == null) {
        select.append(qualifier).append(quote(column.name()));
      } else {
        select
            .append("CAST((")
            .append(value)
            .append(") AS ")
            .append(duckDbType(column))
            .append(")");
      }
    }
    appendFromWhere(
        select,
        update.table(),
        update.alias(),
        SqlTokens.numberParameters(update.where(), nextParameter).text());
    return select.toString();
  }

  /** {@code FROM table [AS alias] [WHERE condition]} of the query behind a DELETE or UPDATE. */
  private static void appendFromWhere(
      StringBuilder select, TableReference table, String alias, String where) {
    select.append(" FROM ").append(name(table));
    if (!alias.isEmpty()) {
      select.append(" AS ").append(quote(alias));
    }
    if (!where.isEmpty()) {
      select.append(" WHERE ").append(where);
    }
  }

  /** The target columns of an INSERT, by name: the column list, or every column in order. */
  private static List<String> targetColumns(Schema schema, SqlWrite.Insert insert) {
    List<String> names = new ArrayList<>();
    if (insert.columns().isEmpty()) {
      schema.columns().forEach(column -> names.add(column.name()));
      return names;
    }
    String list = insert.columns().substring(1, insert.columns().length() - 1);
    SqlTokens tokens = new SqlTokens(list);
    while (!tokens.atEnd()) {
      String name = tokens.identifier(insert.columns());
      Types.NestedField column = schema.caseInsensitiveFindField(name);
      if (column == null) {
        throw new InvalidQueryException("Table " + insert.table() + " has no column " + name);
      }
      if (names.contains(column.name())) {
        throw new InvalidQueryException("Column " + name + " is named twice");
      }
      names.add(column.name());
      if (!tokens.tryPunctuation(',') && !tokens.atEnd()) {
        throw new InvalidQueryException("Expected ',' in the column list " + insert.columns());
      }
    }
    return names;
  }

  /** Every row of a query as the stream client's values, read fully before anything is written. */
  private List<Object[]> read(
      String sql, List<Object> parameters, String principal, List<Types.NestedField> columns) {
    List<Object[]> rows = new ArrayList<>();
    try (QueryResult result = engine.execute(sql, parameters, principal)) {
      ArrowReader reader = result.reader();
      while (nextBatch(result)) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        List<FieldVector> vectors = root.getFieldVectors();
        for (int row = 0; row < root.getRowCount(); row++) {
          if (rows.size() == MAX_ROWS) {
            throw new QueryLimitException(
                "One SQL statement writes at most "
                    + MAX_ROWS
                    + " rows; use bulk ingest (CommandStatementIngest) for more",
                null);
          }
          Object[] values = new Object[vectors.size()];
          for (int column = 0; column < values.length; column++) {
            FieldVector vector = vectors.get(column);
            if (!vector.isNull(row)) {
              values[column] = value(ArrowValues.get(vector, row), columns.get(column));
            } else if (columns.get(column).isRequired()) {
              throw new InvalidQueryException(
                  "Column " + columns.get(column).name() + " is NOT NULL but a row gives it null");
            }
          }
          rows.add(values);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the rows to write", e);
    }
    return rows;
  }

  /**
   * Loads the result's next batch; a failure is reported as the query explains it (a streamed
   * query's reason, found again, instead of DuckDB's {@code Invalid result set}).
   */
  private static boolean nextBatch(QueryResult result) throws IOException {
    try {
      return result.reader().loadNextBatch();
    } catch (IOException | RuntimeException e) {
      Exception explained = result.explained(e);
      if (explained instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw explained instanceof IOException io ? io : new IOException(explained);
    }
  }

  /** A value as the stream client takes it for a column (DuckDB's UUIDs come as strings). */
  private static Object value(Object value, Types.NestedField column) {
    if (column.type().typeId() == Type.TypeID.UUID && value instanceof String text) {
      java.util.UUID uuid = java.util.UUID.fromString(text);
      return java.nio.ByteBuffer.allocate(16)
          .putLong(uuid.getMostSignificantBits())
          .putLong(uuid.getLeastSignificantBits())
          .array();
    }
    return value;
  }

  /** The DuckDB type a column's values are cast to. */
  static String duckDbType(Types.NestedField column) {
    Type type = column.type();
    return switch (type.typeId()) {
      case BOOLEAN -> "BOOLEAN";
      case INTEGER -> "INTEGER";
      case LONG -> "BIGINT";
      case FLOAT -> "FLOAT";
      case DOUBLE -> "DOUBLE";
      case DECIMAL ->
          "DECIMAL("
              + ((Types.DecimalType) type).precision()
              + ", "
              + ((Types.DecimalType) type).scale()
              + ")";
      case STRING -> "VARCHAR";
      case BINARY, FIXED -> "BLOB";
      case DATE -> "DATE";
      case TIME -> "TIME";
      case TIMESTAMP ->
          ((Types.TimestampType) type).shouldAdjustToUTC() ? "TIMESTAMPTZ" : "TIMESTAMP";
      case UUID -> "UUID";
      default ->
          throw new InvalidQueryException(
              "Column "
                  + column.name()
                  + " has type "
                  + type
                  + ", which SQL writes do not support yet");
    };
  }

  private TablePath path(String warehouse, TableIdentifier identifier) {
    return tables.path(warehouse, List.of(identifier.namespace().levels()), identifier.name());
  }

  private static FlightRuntimeException rpcError(RpcException e, TableReference table) {
    CallStatus status =
        switch (e.error()) {
          case UNKNOWN_TABLE, UNKNOWN_NAMESPACE, UNKNOWN_PARTITION -> CallStatus.NOT_FOUND;
          case ALREADY_EXISTS -> CallStatus.ALREADY_EXISTS;
          case NOT_AUTHENTICATED -> CallStatus.UNAUTHENTICATED;
          case NOT_AUTHORIZED -> CallStatus.UNAUTHORIZED;
          case INVALID_BATCH,
              INVALID_REQUEST,
              INVALID_TABLE_DEFINITION,
              INVALID_MUTATION,
              DELETE_NOT_SUPPORTED,
              SCHEMA_MISMATCH,
              REQUEST_TOO_LARGE ->
              CallStatus.INVALID_ARGUMENT;
          case STORAGE_ERROR, SERVER_SHUTTING_DOWN, NETWORK_ERROR -> CallStatus.UNAVAILABLE;
          default -> CallStatus.INTERNAL;
        };
    return status
        .withDescription("Writing " + table + " failed: " + e.getMessage())
        .withCause(e)
        .toRuntimeException();
  }

  private static String name(TableReference table) {
    return (table.catalog().isEmpty() ? "" : quote(table.catalog()) + ".")
        + quote(table.schema())
        + "."
        + quote(table.table());
  }
}
