package io.lakestream.flight.query;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one pool of DuckDB databases that queries run in: {@link #lend} gives each query an empty
 * database of its own, and the query gives it back by closing what it was lent.
 *
 * <p>A query whose rows stream out ({@link Results#STREAMED}, every query's first run) gets a
 * sandboxed database ({@link SandboxedDatabases}): locked from the start, able to read only the
 * files linked into its sandbox, emptied and used again after the query. When a file cannot be
 * linked (the warehouse is on another file system), {@link #withFallback} switches the pool for
 * good to fresh databases ({@link SpareDatabases}), each used once and restricted to the query's
 * files by the engine once its tables are in place ({@link Lent#locked} is then false). A query run
 * again with its result materialized ({@link Results#MATERIALIZED}), only to learn why its streamed
 * run failed, always gets a fresh database of that kind.
 *
 * <p>Every database spills into a directory of its own, removed with it. Thread safe.
 */
final class QueryDatabases implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QueryDatabases.class);

  /**
   * Fresh databases kept open ahead of queries ({@link SpareDatabases}): two, since a JDBC client
   * often runs a statement right after another.
   */
  static final int SPARE_DATABASES = 2;

  /**
   * The name of every lent database's own catalog: DuckDB names an in-memory database opened by
   * {@code jdbc:duckdb:} this way, and a query cannot change it ({@code USE} is not a query). A
   * query's set-up names it instead of asking DuckDB, which would be a statement of its own.
   */
  static final String DATABASE = "memory";

  /** Sandboxed databases kept open between queries ({@link SandboxedDatabases}). */
  static final int KEPT_DATABASES = 4;

  /** How a lent database returns a query's rows. */
  enum Results {
    /** As the client reads them (DuckDB's {@code jdbc_stream_results}). */
    STREAMED,
    /**
     * All at once, where DuckDB's JDBC driver reports an error in full: it reports every failure of
     * a streamed result as the same message without its reason.
     */
    MATERIALIZED
  }

  /**
   * A database lent to one query: how it reads a file by path ({@code located}), and whether its
   * settings are already locked with only its sandbox readable ({@code locked}); when not, the
   * query restricts it to its files and locks it before running. Closing {@code giveBack} returns
   * or closes the database. The query's set-up tells {@code setUp} what it creates, before it
   * creates it.
   */
  record Lent(
      Connection duckdb,
      AutoCloseable giveBack,
      UnaryOperator<String> located,
      boolean locked,
      SetUp setUp,
      KeptStatements kept) {
    Lent {
      requireNonNull(duckdb, "duckdb is null");
      requireNonNull(giveBack, "giveBack is null");
      requireNonNull(located, "located is null");
      requireNonNull(setUp, "setUp is null");
      requireNonNull(kept, "kept is null");
    }
  }

  /**
   * Prepared statements of queries that name no table, kept with a database that is lent again:
   * such a statement depends on nothing a set-up creates or a give-back removes, so the next query
   * of the same text in that database runs it without preparing it again (DuckDB's prepare is about
   * half of what the server spends on a {@code SELECT 1}). Used by one query at a time, as its
   * database.
   */
  interface KeptStatements {
    /** Keeps nothing: for a database that is closed after its query. */
    KeptStatements NONE =
        new KeptStatements() {
          @Override
          public PreparedStatement get(String sql) {
            return null;
          }

          @Override
          public boolean keep(String sql, PreparedStatement statement) {
            return false;
          }
        };

    /** The statement kept for {@code sql}, or null (also when it was closed meanwhile). */
    PreparedStatement get(String sql);

    /**
     * Keeps {@code statement}, prepared for {@code sql} in this database, for the next query of the
     * same text; it is closed with the database (or when it makes way for others). False when it is
     * not kept, and the caller closes it.
     */
    boolean keep(String sql, PreparedStatement statement);
  }

  /**
   * What a query's set-up creates in its database, told before it creates it: a sandboxed database
   * given back is emptied of exactly that instead of searched ({@link SandboxedDatabases}). Besides
   * these, a set-up creates only the Arrow rows view ({@link
   * io.lakestream.flight.scan.LakeViews#ARROW_ROWS_VIEW}).
   */
  interface SetUp {
    /** The query names no table: its set-up creates nothing. */
    void nothing();

    /** Attaches an empty in-memory database as {@code name}, for a query's three-part names. */
    void attach(String name) throws SQLException;

    /**
     * The set-up creates schema {@code name} in the database's default catalog, or puts things in
     * it when DuckDB has it already ({@code main}).
     */
    void schema(String name);

    /**
     * The set-up creates a view ({@code view}) or a table {@code name} in schema {@code schema} of
     * the default catalog.
     */
    void object(boolean view, String schema, String name);
  }

  private final SandboxedDatabases sandboxed;
  private final SpareDatabases fresh;
  private final SpareDatabases materializing;
  // Cleared when a file cannot be linked into a sandbox: from then on each query opens a database
  // of its own.
  private volatile boolean linking = true;

  /**
   * @param settings DuckDB settings of every database (memory limit, threads and the like); the
   *     pool adds {@code jdbc_stream_results} for {@link Results#STREAMED}
   * @param sandboxRoot the directory under which each sandboxed database gets its sandbox
   * @param spillRoot the directory under which each database gets the directory it spills into,
   *     outside {@code sandboxRoot}
   */
  QueryDatabases(Properties settings, Path sandboxRoot, Path spillRoot) {
    requireNonNull(settings, "settings is null");
    requireNonNull(sandboxRoot, "sandboxRoot is null");
    requireNonNull(spillRoot, "spillRoot is null");
    this.materializing = new SpareDatabases(settings, 0, spillRoot.resolve("materializing"));
    // Results are produced as the client reads them. A materialized result sits outside the
    // engine's memory limit, so a large SELECT would take the server's memory before its first row.
    Properties streamed = (Properties) settings.clone();
    streamed.setProperty("jdbc_stream_results", "true");
    this.fresh = new SpareDatabases(streamed, SPARE_DATABASES, spillRoot.resolve("unsandboxed"));
    this.sandboxed =
        new SandboxedDatabases(
            streamed, sandboxRoot, spillRoot.resolve("sandboxed"), KEPT_DATABASES);
  }

  /**
   * An empty database no other query uses, for a query whose rows come back as {@code results}
   * says; the caller closes {@link Lent#giveBack} when the query is done.
   *
   * @throws SQLException when a database cannot be opened
   */
  Lent lend(Results results) throws SQLException {
    requireNonNull(results, "results is null");
    if (results == Results.STREAMED && linking) {
      SandboxedDatabases.Sandbox sandbox = sandboxed.take();
      return new Lent(sandbox.connection(), sandbox, sandbox::link, true, sandbox, sandbox.kept());
    }
    SpareDatabases.Spare spare = (results == Results.STREAMED ? fresh : materializing).take();
    // A fresh database is closed after its query, never emptied: what its set-up creates goes
    // with it.
    SetUp setUp =
        new SetUp() {
          @Override
          public void nothing() {}

          @Override
          public void attach(String name) throws SQLException {
            SandboxedDatabases.attachEmpty(spare.connection(), name);
          }

          @Override
          public void schema(String name) {}

          @Override
          public void object(boolean view, String schema, String name) {}
        };
    return new Lent(spare.connection(), spare, path -> path, false, setUp, KeptStatements.NONE);
  }

  /**
   * Runs {@code work}, which lends a database of {@code results}' kind; when it fails because a
   * file cannot be linked into a sandbox, stops sandboxing for good and runs {@code work} once more
   * (it then gets a fresh database).
   */
  <T> T withFallback(Results results, Supplier<T> work) {
    try {
      return work.get();
    } catch (SandboxedDatabases.LinkException e) {
      if (results != Results.STREAMED || !linking) {
        throw e;
      }
      linking = false;
      LOG.warn(
          "Queries open a DuckDB database each from now on: {} ({})",
          e.getMessage(),
          e.getCause().getMessage());
      return work.get();
    }
  }

  /** Closes the databases kept open; those lent are closed when their queries give them back. */
  @Override
  public void close() {
    fresh.close();
    materializing.close();
    sandboxed.close();
  }
}
