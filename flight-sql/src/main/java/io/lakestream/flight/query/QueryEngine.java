package io.lakestream.flight.query;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.query.QueryDatabases.Lent;
import io.lakestream.flight.query.QueryDatabases.Results;
import io.lakestream.flight.scan.LakeViews;
import io.lakestream.flight.scan.LakestreamTables;
import io.lakestream.flight.scan.SnapshotFiles;
import io.lakestream.flight.scan.TailCache;
import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.sql.TableReference;
import io.lakestream.flight.sql.TableReferences;
import io.lakestream.scan.UnionScanPlanner;
import io.lakestream.scan.UnionScanReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * Runs SQL over Lakestream tables with DuckDB in process. Each query gets an empty in-memory DuckDB
 * database of its own, lent by {@link QueryDatabases} (one that earlier queries used and left
 * empty, or a fresh one when the files cannot be linked into its sandbox) in which every table it
 * names (found by {@link TableReferences}) appears under the name the query uses, holding a union
 * read (every row acknowledged before the query started, each once; a primary-key table's current
 * state): a view over the lake snapshot's Parquet files and the log tail where {@link LakeViews}
 * can read the table that way, so that DuckDB pushes projection and filters into the scans;
 * otherwise a table loaded by the reference {@link UnionScanReader}. Then the query runs and its
 * result streams out as Arrow batches.
 *
 * <p>The database can read only the Parquet files of the snapshots the query reads, can neither
 * write files, load extensions nor change its settings once the tables are in place (a sandboxed
 * one from the start); its memory and threads are limited per query. Thread safe: queries share
 * nothing but the allocator.
 */
public final class QueryEngine implements AutoCloseable {
  /** What DuckDB's JDBC driver says for any failure of a streamed query ({@link #reasonLost}). */
  private static final String REASON_LOST = "Invalid result set";

  /** Arrow bytes of decoded log tails kept between queries ({@link TailCache}). */
  static final long TAIL_CACHE_BYTES = 512L << 20;

  /** Statements whose parsed table and column references are kept between executions. */
  static final int PARSED_STATEMENTS_CACHED = 256;

  /** Snapshots whose data file lists are kept between queries ({@link SnapshotFiles}). */
  static final int SNAPSHOT_FILES_CACHED = 256;

  /** Limits of each query's DuckDB database. */
  public record Limits(String memoryLimit, int threads, int resultBatchRows) {
    public Limits {
      requireNonNull(memoryLimit, "memoryLimit is null");
    }
  }

  private final LakestreamTables tables;
  private final FlightSqlAccess access;
  private final Limits limits;
  private final LakeViews views;
  private final QueryTables queryTables;
  private final DuckDbStatements statements;
  // Parquet files of cached log tails (TailCache), in the engine's scratch directory, removed on
  // close (and at the next start after a kill).
  private final Path tailDirectory;
  // The sandboxes of the databases queries run in, under the engine's scratch directory.
  private final Path sandboxDirectory;
  private final QueryDatabases databases;
  // Every query from admission to release: concurrency per principal, timeout, cancellation.
  private final RunningQueries running;

  // A prepared statement runs the same text again and again; parsing it takes a DuckDB round trip.
  private final Map<String, TableReferences.Parsed> parsedStatements =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TableReferences.Parsed> eldest) {
          return size() > PARSED_STATEMENTS_CACHED;
        }
      };
  // The JDBC driver prepares every statement it runs, and a prepare runs the statement over empty
  // tables in a database of its own to learn its shape: a third of a small query's time.
  private final Map<ShapeKey, Shape> shapes =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ShapeKey, Shape> eldest) {
          return size() > PARSED_STATEMENTS_CACHED;
        }
      };
  // Every run of a statement (each execution of a prepared one) needs its result schema for the
  // FlightInfo before its rows are read, and finding it takes a DuckDB statement of its own.
  private final Map<ResultKey, Schema> resultSchemas =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ResultKey, Schema> eldest) {
          return size() > PARSED_STATEMENTS_CACHED;
        }
      };
  private final java.util.concurrent.atomic.AtomicLong schemaPasses =
      new java.util.concurrent.atomic.AtomicLong();

  public QueryEngine(
      LakestreamTables tables,
      UnionScanPlanner planner,
      UnionScanReader reader,
      Duration readTimeout,
      FlightSqlAccess access,
      BufferAllocator allocator,
      Path scratch,
      Limits limits,
      RunningQueries running) {
    this.tables = requireNonNull(tables, "tables is null");
    requireNonNull(planner, "planner is null");
    requireNonNull(reader, "reader is null");
    this.access = requireNonNull(access, "access is null");
    requireNonNull(allocator, "allocator is null");
    this.limits = requireNonNull(limits, "limits is null");
    this.running = requireNonNull(running, "running is null");
    Path spillDirectory;
    try {
      emptyDirectory(scratch); // what a killed process left
      this.tailDirectory = Files.createDirectory(scratch.resolve("tails"));
      this.sandboxDirectory = Files.createDirectory(scratch.resolve("query-databases"));
      spillDirectory = Files.createDirectory(scratch.resolve("query-spill"));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot prepare the Flight SQL scratch directory " + scratch + ": " + e.getMessage(), e);
    }
    this.views =
        new LakeViews(
            allocator,
            new TailCache(TAIL_CACHE_BYTES, readTimeout, tailDirectory),
            new SnapshotFiles(SNAPSHOT_FILES_CACHED));
    this.queryTables = new QueryTables(tables, planner, reader, access, allocator, views);
    this.statements = new DuckDbStatements(allocator);
    Properties settings = new Properties();
    settings.setProperty("autoinstall_known_extensions", "false");
    settings.setProperty("autoload_known_extensions", "false");
    settings.setProperty("memory_limit", limits.memoryLimit());
    settings.setProperty("threads", Integer.toString(limits.threads()));
    // Over a union view (lake files UNION ALL the log tail) DuckDB has no join filter into the
    // lake scan and pushed partial aggregates below joins, grouping a whole fact table first
    // (TPC-H Q5 at scale 1: 1.3 s with the rule, 0.68 s without; DuckDB over the Parquet, 0.15 s).
    settings.setProperty("disabled_optimizers", "partial_aggregate_pushdown");
    this.databases = new QueryDatabases(settings, sandboxDirectory, spillDirectory);
  }

  /** What a query returns and the parameters it takes, found without reading any rows. */
  public record Shape(Schema dataset, Schema parameters) {}

  /**
   * The result and parameter schemas of a query, by running it over empty tables with null
   * parameters.
   *
   * @throws InvalidQueryException when the query is not valid or names unknown tables
   * @throws org.apache.iceberg.exceptions.ForbiddenException when {@code principal} may not read a
   *     table it names
   */
  public Shape shape(String sql, String principal) {
    return shape(sql, principal, () -> false);
  }

  /**
   * As {@link #shape(String, String)}, stopped when {@code callGone} (see {@link
   * RunningQueries#admit}) or when it runs out of time.
   *
   * @throws QueryLimitException when {@code principal} runs as many queries as allowed already
   * @throws QueryCancelledException when the call is gone
   * @throws QueryTimeoutException when it ran longer than allowed
   */
  public Shape shape(String sql, String principal, java.util.function.BooleanSupplier callGone) {
    ShapeKey key = shapeKey(sql, principal);
    if (key != null) {
      synchronized (shapes) {
        Shape known = shapes.get(key);
        if (known != null) {
          return known;
        }
      }
    }
    Shape shape;
    try (RunningQueries.Query query = running.admit(principal, callGone)) {
      try {
        shape = shape(Results.STREAMED, sql, principal, query);
      } catch (InvalidQueryException e) {
        if (!reasonLost(e)) {
          throw e;
        }
        // See diagnosed(): run again with the result materialized to learn why it failed.
        shape = shape(Results.MATERIALIZED, sql, principal, query);
      }
    }
    key = key != null ? key : shapeKey(sql, principal);
    if (key != null) {
      synchronized (shapes) {
        shapes.put(key, shape);
      }
    }
    return shape;
  }

  /**
   * What a statement's shape depends on: its text and the identity and schema of each table it
   * reads (a table dropped and created again under its name, or given a new schema, is another
   * key). Null when the statement has not been parsed yet or names a table that does not exist.
   * Checks that {@code principal} may read each table, as running the statement would.
   */
  private ShapeKey shapeKey(String sql, String principal) {
    TableReferences.Parsed parsed;
    synchronized (parsedStatements) {
      parsed = parsedStatements.get(DuckDbStatements.explained(sql));
    }
    if (parsed == null) {
      return null;
    }
    List<String> tableVersions = new ArrayList<>();
    for (TableReference reference : parsed.tables()) {
      String warehouse = tables.warehouse(reference.catalog(), reference);
      TablePath path = tables.path(warehouse, List.of(reference.schema()), reference.table());
      access.checkRead(principal, warehouse, path.namespace());
      Table table;
      try {
        table = tables.load(warehouse, TableIdentifier.of(reference.schema(), reference.table()));
      } catch (NoSuchTableException e) {
        return null; // the statement's own run reports it
      }
      tableVersions.add(
          warehouse + "." + path + "#" + table.uuid() + "@" + table.schema().schemaId());
    }
    return new ShapeKey(sql, tableVersions);
  }

  private record ShapeKey(String sql, List<String> tableVersions) {}

  /**
   * What a statement's result schema depends on: its shape key and the type of each value bound to
   * it (DuckDB binds a parameter by its value's Java type, a decimal by its precision and scale).
   */
  private record ResultKey(ShapeKey shape, List<String> parameterTypes) {}

  private ResultKey resultKey(String sql, String principal, List<Object> parameters) {
    ShapeKey shape = shapeKey(sql, principal);
    if (shape == null) {
      return null;
    }
    List<String> types = new ArrayList<>(parameters.size());
    for (Object value : parameters) {
      types.add(
          switch (value) {
            case null -> "null";
            case java.math.BigDecimal decimal ->
                "decimal(" + decimal.precision() + "," + decimal.scale() + ")";
            default -> value.getClass().getName();
          });
    }
    return new ResultKey(shape, List.copyOf(types));
  }

  /**
   * The schema of the rows {@code statement} returns: known from an earlier run of the same
   * statement over the same tables with parameters of the same types, else found by {@link
   * DuckDbStatements#resultSchema} (a second DuckDB statement, a third of a small query's time) and
   * kept; null when it can only be found by running the statement.
   */
  private Schema resultSchema(
      ResultKey key,
      Connection duckdb,
      String sql,
      PreparedStatement statement,
      List<Object> parameters,
      RunningQueries.Query query)
      throws SQLException {
    if (key != null) {
      synchronized (resultSchemas) {
        Schema known = resultSchemas.get(key);
        if (known != null) {
          return known;
        }
      }
    }
    schemaPasses.incrementAndGet();
    Schema schema = statements.resultSchema(duckdb, sql, statement, parameters, query);
    if (schema != null && key != null) {
      synchronized (resultSchemas) {
        resultSchemas.put(key, schema);
      }
    }
    return schema;
  }

  /** How many result schemas were found by running a statement under {@code LIMIT 0}. */
  long schemaPasses() {
    return schemaPasses.get();
  }

  private Shape shape(Results results, String sql, String principal, RunningQueries.Query query) {
    return databases.withFallback(results, () -> shapeIn(results, sql, principal, query));
  }

  private Shape shapeIn(Results results, String sql, String principal, RunningQueries.Query query) {
    Lent lent;
    try {
      lent = databases.lend(results);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot open a query database: " + e.getMessage(), e);
    }
    Connection duckdb = lent.duckdb();
    try (AutoCloseable giveBack = lent.giveBack();
        AutoCloseable tailFiles =
            queryTables.load(
                lent, parsed(duckdb, DuckDbStatements.explained(sql)), principal, false)) {
      query.checkRunning();
      try (PreparedStatement statement = DuckDbStatements.prepare(duckdb, sql, lent.locked())) {
        query.executing(statement);
        Schema parameters = DuckDbStatements.parameterSchema(statement.getParameterMetaData());
        for (int i = 1; i <= parameters.getFields().size(); i++) {
          statement.setNull(i, Types.NULL);
        }
        Schema dataset = statements.resultSchema(duckdb, sql, statement, null, query);
        if (dataset != null) {
          return new Shape(dataset, parameters);
        }
        query.computing();
        try (ResultSet result = DuckDbStatements.execute(statement, sql, query);
            ArrowReader rows = statements.arrow(result, 1)) {
          return new Shape(rows.getVectorSchemaRoot().getSchema(), parameters);
        }
      }
    } catch (RuntimeException e) {
      RuntimeException stopped = query.stoppedError(e);
      throw stopped != null ? stopped : e;
    } catch (Exception e) {
      RuntimeException stopped = query.stoppedError(e);
      throw stopped != null
          ? stopped
          : new IllegalStateException("Cannot describe query: " + e.getMessage(), e);
    }
  }

  /**
   * Starts a query: reads the tables it names, runs it, and returns its result to stream.
   *
   * @param parameters values of the query's parameters, in order
   * @throws InvalidQueryException when the query is not valid, names unknown tables, or takes a
   *     different number of parameters
   * @throws QueryLimitException when the query runs out of memory
   * @throws org.apache.iceberg.exceptions.ForbiddenException when {@code principal} may not read a
   *     table it names
   */
  public QueryResult execute(String sql, List<Object> parameters, String principal) {
    QueryResult result = execute(sql, parameters, principal, () -> false);
    try {
      result.reader(); // runs the statement now, so that a failure is diagnosed as it always was
      return result;
    } catch (RuntimeException e) {
      result.close();
      if (e instanceof InvalidQueryException && reasonLost(e)) {
        throw diagnosed(sql, parameters, principal, e);
      }
      throw e;
    }
  }

  /**
   * As {@link #execute(String, List, String)}, stopped when {@code callGone} (see {@link
   * RunningQueries#admit}; {@link QueryResult#follow} watches another call) or when it runs out of
   * time. The query counts among its principal's running queries until its result is closed.
   *
   * @throws QueryLimitException when {@code principal} runs as many queries as allowed already
   * @throws QueryCancelledException when the call is gone
   * @throws QueryTimeoutException when it ran longer than allowed
   */
  public QueryResult execute(
      String sql,
      List<Object> parameters,
      String principal,
      java.util.function.BooleanSupplier callGone) {
    RunningQueries.Query query = running.admit(principal, callGone);
    try {
      return run(Results.STREAMED, sql, parameters, principal, query);
    } catch (RuntimeException e) {
      query.close();
      RuntimeException stopped = query.stoppedError(e);
      if (stopped != null) {
        throw stopped;
      }
      if (e instanceof InvalidQueryException && reasonLost(e)) {
        throw diagnosed(sql, parameters, principal, e);
      }
      throw e;
    }
  }

  /**
   * Whether DuckDB failed a streamed query without saying why: its JDBC driver reports every error
   * that happens while a streamed result is computed (out of memory, a failed cast) as this.
   */
  static boolean reasonLost(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (String.valueOf(cause.getMessage()).contains(REASON_LOST)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The error of a streamed query that failed without a reason, found by running it again with its
   * result materialized, where DuckDB reports errors in full. A deterministic failure (a cast, the
   * memory limit) fails the second run at the same point, before the whole result exists; a second
   * run that succeeds is dropped and the first error stands.
   */
  private RuntimeException diagnosed(
      String sql, List<Object> parameters, String principal, Exception lost) {
    RunningQueries.Query query;
    try {
      query = running.admit(principal, () -> false);
    } catch (QueryLimitException e) {
      return lost instanceof RuntimeException runtime
          ? runtime
          : new IllegalStateException(lost.getMessage(), lost);
    }
    try (QueryResult again = run(Results.MATERIALIZED, sql, parameters, principal, query)) {
      again.reader(); // runs it
      return lost instanceof RuntimeException runtime
          ? runtime
          : new IllegalStateException(lost.getMessage(), lost);
    } catch (RuntimeException e) {
      query.close();
      RuntimeException stopped = query.stoppedError(e);
      return stopped != null ? stopped : e;
    }
  }

  private QueryResult run(
      Results results,
      String sql,
      List<Object> parameters,
      String principal,
      RunningQueries.Query query) {
    return databases.withFallback(results, () -> runIn(results, sql, parameters, principal, query));
  }

  private QueryResult runIn(
      Results results,
      String sql,
      List<Object> parameters,
      String principal,
      RunningQueries.Query query) {
    List<AutoCloseable> resources = new ArrayList<>();
    try {
      Lent lent = databases.lend(results);
      Connection duckdb = lent.duckdb();
      resources.add(lent.giveBack());
      TableReferences.Parsed parsed = parsed(duckdb, DuckDbStatements.explained(sql));
      // Keyed by the tables as they are before their views are made, as shape() keys its shapes.
      ResultKey key = resultKey(sql, principal, parameters);
      resources.add(queryTables.load(lent, parsed, principal, true));
      query.checkRunning();
      PreparedStatement statement = prepared(lent, parsed, sql, resources);
      query.executing(statement);
      int expected = statement.getParameterMetaData().getParameterCount();
      if (expected != parameters.size()) {
        throw new InvalidQueryException(
            "The query takes "
                + expected
                + " parameters but "
                + parameters.size()
                + " were bound: "
                + sql);
      }
      for (int i = 0; i < expected; i++) {
        statement.setObject(i + 1, parameters.get(i));
      }
      java.util.function.Function<Exception, Exception> explain =
          failure ->
              results == Results.STREAMED && reasonLost(failure)
                  ? diagnosed(sql, parameters, principal, failure)
                  : failure;
      Schema schema = resultSchema(key, duckdb, sql, statement, parameters, query);
      if (schema == null) {
        query.computing();
        ResultSet result = DuckDbStatements.execute(statement, sql, query);
        resources.add(result);
        return new QueryResult(
            statements.arrow(result, limits.resultBatchRows()), query, resources, explain);
      }
      // The statement runs when its result is first read (Flight's DoGet): a client cancels that
      // call, not the one asking for the FlightInfo.
      return new QueryResult(
          schema,
          opened -> {
            ResultSet result = DuckDbStatements.execute(statement, sql, query);
            opened.add(result);
            return statements.arrow(result, limits.resultBatchRows());
          },
          query,
          resources,
          explain);
    } catch (SQLException e) {
      closeAll(resources);
      throw new IllegalStateException("Cannot run query: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeAll(resources);
      throw e;
    }
  }

  /**
   * {@code sql} prepared in the query's database: the statement the database kept from an earlier
   * query of the same text when it names no table, else a new one, kept for the next such query or
   * closed with the query's {@code resources}.
   */
  private static PreparedStatement prepared(
      Lent lent, TableReferences.Parsed parsed, String sql, List<AutoCloseable> resources)
      throws SQLException {
    boolean keepable = parsed.tables().isEmpty();
    PreparedStatement kept = keepable ? lent.kept().get(sql) : null;
    if (kept != null) {
      kept.clearParameters();
      return kept;
    }
    PreparedStatement statement = DuckDbStatements.prepare(lent.duckdb(), sql, lent.locked());
    if (!(keepable && lent.kept().keep(sql, statement))) {
      resources.add(statement);
    }
    return statement;
  }

  /** The tables and columns {@code sql} references, parsed once per statement text. */
  private TableReferences.Parsed parsed(Connection duckdb, String sql) {
    synchronized (parsedStatements) {
      TableReferences.Parsed known = parsedStatements.get(sql);
      if (known != null) {
        return known;
      }
    }
    TableReferences.Parsed parsed = TableReferences.parse(duckdb, sql);
    synchronized (parsedStatements) {
      parsedStatements.put(sql, parsed);
    }
    return parsed;
  }

  private static void closeAll(List<AutoCloseable> resources) {
    for (AutoCloseable resource : resources.reversed()) {
      try {
        resource.close();
      } catch (Exception e) {
        // already failing; the first error is the one to report
      }
    }
  }

  /** Creates {@code directory} or removes everything in it. */
  private static void emptyDirectory(Path directory) throws IOException {
    Files.createDirectories(directory);
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        if (!file.equals(directory)) {
          Files.delete(file);
        }
      }
    }
  }

  /** Closes the databases kept open ahead; running queries keep theirs. */
  @Override
  public void close() {
    databases.close();
    views.close();
    try {
      Files.deleteIfExists(sandboxDirectory);
    } catch (IOException e) {
      // a query still running keeps its database's directory; the next start removes it
    }
    try (Stream<Path> files = Files.list(tailDirectory)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
      Files.deleteIfExists(tailDirectory);
    } catch (IOException e) {
      // the next start removes what is left
    }
  }
}
