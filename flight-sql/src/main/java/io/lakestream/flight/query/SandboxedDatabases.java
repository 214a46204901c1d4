package io.lakestream.flight.query;

import static io.lakestream.flight.scan.LakeViews.ARROW_ROWS_VIEW;
import static io.lakestream.flight.scan.LakeViews.literal;
import static io.lakestream.flight.scan.LakeViews.quote;
import static java.util.Objects.requireNonNull;

import io.lakestream.flight.scan.LakeViews;
import io.lakestream.flight.sql.QuerySandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-memory DuckDB databases that queries use one after another. Opening a database costs tens of
 * milliseconds of CPU (closing it a few more), more than the rest of a small query; a database here
 * is opened once and emptied after each query instead.
 *
 * <p>Each database is locked down when it opens: it may read files only in a directory of its own
 * (its sandbox) and in the directory it spills into, never the network, and its settings cannot
 * change. Each spills into a directory of its own, outside every sandbox: DuckDB always lets a
 * database read its spill directory, and by default every in-memory database of the process spills
 * into the same {@code .tmp} of the working directory, where any query could read another's rows.
 * Queries cannot name files at all ({@link QuerySandbox}); and a database whose query left spilled
 * data is closed, not lent to the next query. A query that uses it gets the files it may read as
 * hard links in that directory ({@link Sandbox#link}), so the database reads exactly those files,
 * as a database opened for the query and restricted to their paths would. A file links under the
 * same name in every query ({@link #linkName}), so that what DuckDB keeps of a file by path between
 * queries (its Parquet footer, blocks of its external file cache) is found again; a database that
 * has read more than {@value #FILES_PER_DATABASE} files is closed after its query, which bounds
 * what it keeps. When the query ends, the links go (a later query reads a file only through a link
 * of its own), and every schema, table, view and attached database the query left is dropped; a
 * database whose emptying fails is closed rather than used again. One query at a time uses a
 * database. Thread safe.
 *
 * <p>What a query left is known without searching the database's catalog (a few milliseconds of
 * DuckDB's work after every query, more than all else a small query costs) when its set-up told,
 * before creating them, the schemas, views, tables and attached databases it creates ({@link
 * QueryDatabases.SetUp}, which a sandbox is), or that it creates nothing ({@link Sandbox#nothing});
 * the only other thing a set-up creates is the one temporary view {@value
 * LakeViews#ARROW_ROWS_VIEW} that DuckDB reads Arrow rows through. Giving the database back then
 * drops exactly those in one statement. Every {@value #CHECK_EVERY}th database so emptied is
 * searched as well; when that finds anything left, the database is closed and every later one is
 * searched after its query. A query whose set-up told nothing is searched.
 */
final class SandboxedDatabases implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxedDatabases.class);

  /**
   * Distinct files a database may have read before it is closed rather than lent again: DuckDB
   * keeps each file's footer for as long as the database lives.
   */
  static final int FILES_PER_DATABASE = 1_000;

  /**
   * How often a database emptied by its set-up's record is searched as well; the system property
   * {@value #CHECK_EVERY_PROPERTY} sets another interval (test suites search every database).
   */
  static final int CHECK_EVERY = 64;

  static final String CHECK_EVERY_PROPERTY = "lakestream.flight.query-database-check-every";

  /** DuckDB's own schemas of a database's default catalog, which a query's set-up may use. */
  private static final Set<String> OWN_SCHEMAS = Set.of("main", "information_schema", "pg_catalog");

  // Databases, of any pool in this JVM, that held more than their query's set-up recorded.
  private static final AtomicLong UNRECORDED = new AtomicLong();

  /**
   * How many bytes of a file's own name its link keeps, after the digest of its path: a name of
   * another engine's file may take up to the file system's 255 bytes itself.
   */
  private static final int LINK_NAME_TAIL_BYTES = 128;

  private final Properties settings;
  private final Path root;
  private final Path spillRoot;
  private final int kept;
  private final Deque<Database> idle = new ArrayDeque<>();
  private final AtomicLong ids = new AtomicLong();
  private final int checkEvery;
  private final AtomicLong recordedEmptyings = new AtomicLong();
  // Set when a database emptied by its set-up's record still held something: from then on every
  // database is searched after its query.
  private volatile boolean searchAlways;
  private boolean closed;

  /**
   * @param settings DuckDB settings of every database (memory limit, threads and the like)
   * @param root the directory under which each database gets its sandbox; links are made to files
   *     on the same file system only
   * @param spillRoot the directory under which each database gets the directory it spills into,
   *     outside {@code root}
   * @param kept how many idle databases to keep open
   */
  SandboxedDatabases(Properties settings, Path root, Path spillRoot, int kept) {
    this(settings, root, spillRoot, kept, Integer.getInteger(CHECK_EVERY_PROPERTY, CHECK_EVERY));
  }

  /**
   * @param checkEvery how often a database emptied by its set-up's record is searched as well (1:
   *     every time)
   */
  SandboxedDatabases(Properties settings, Path root, Path spillRoot, int kept, int checkEvery) {
    requireNonNull(settings, "settings is null");
    if (checkEvery < 1) {
      throw new IllegalArgumentException("checkEvery must be positive: " + checkEvery);
    }
    this.checkEvery = checkEvery;
    this.root = requireNonNull(root, "root is null");
    this.spillRoot = requireNonNull(spillRoot, "spillRoot is null");
    try {
      Files.createDirectories(spillRoot); // DuckDB creates the last level only
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the spill directory " + spillRoot, e);
    }
    if (spillRoot.toAbsolutePath().normalize().startsWith(root.toAbsolutePath().normalize())) {
      throw new IllegalArgumentException(
          "The spill directory " + spillRoot + " must lie outside the sandboxes' " + root);
    }
    if (kept < 0) {
      throw new IllegalArgumentException("kept must not be negative: " + kept);
    }
    this.settings = (Properties) settings.clone();
    this.kept = kept;
  }

  /**
   * A database no other query is using, empty, and able to read nothing yet; the caller closes the
   * sandbox when its query is done.
   *
   * @throws SQLException when a database cannot be opened
   */
  Sandbox take() throws SQLException {
    Database database;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("The query databases are closed");
      }
      database = idle.pollFirst();
    }
    return new Sandbox(database != null ? database : open());
  }

  private Database open() throws SQLException {
    String id = Long.toString(ids.incrementAndGet());
    Path directory = root.resolve(id);
    Path spill = spillRoot.resolve(id);
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new SQLException("Cannot create a query database's directory " + directory, e);
    }
    Properties own = (Properties) settings.clone();
    own.setProperty("temp_directory", spill.toString());
    Connection connection = DriverManager.getConnection("jdbc:duckdb:", own);
    try (Statement statement = connection.createStatement()) {
      // Footers of the Parquet files read, kept by path while the file is unchanged (its
      // modification time): each file links under the same name in every query (see link), so a
      // footer is read once per database, not once for each view, prepare and scan of every query.
      statement.execute(
          "SET parquet_metadata_cache = true; SET allowed_directories = ["
              + literal(directory + "/")
              + "]; SET enable_external_access = false; SET lock_configuration = true");
    } catch (SQLException e) {
      connection.close();
      SpareDatabases.removeDirectory(spill);
      throw e;
    }
    return new Database(connection, directory, spill);
  }

  private void giveBack(Database database) {
    boolean keep;
    synchronized (this) {
      keep = !closed && idle.size() < kept;
      if (keep) {
        idle.addFirst(database);
      }
    }
    if (!keep) {
      database.close();
    }
  }

  /**
   * Whether every database is searched after its query, because one emptied by its set-up's record
   * still held something.
   */
  boolean searchingAlways() {
    return searchAlways;
  }

  /**
   * How many databases of any pool in this JVM held more than their query's set-up recorded when
   * they were searched.
   */
  static long unrecordedLeftovers() {
    return UNRECORDED.get();
  }

  /** Closes the idle databases; those in use are closed when their queries end. */
  @Override
  public void close() {
    List<Database> closing;
    synchronized (this) {
      closed = true;
      closing = new ArrayList<>(idle);
      idle.clear();
    }
    closing.forEach(Database::close);
  }

  /** A database lent to one query, with the files it may read and what its set-up created. */
  final class Sandbox implements AutoCloseable, QueryDatabases.SetUp {
    private final Database database;
    private final Set<String> attached = new LinkedHashSet<>();
    private final Set<String> schemas = new LinkedHashSet<>();
    private final Set<String> objects = new LinkedHashSet<>();
    private boolean closed;
    private SetUp setUp = SetUp.UNKNOWN;

    private Sandbox(Database database) {
      this.database = database;
    }

    Connection connection() {
      return database.connection;
    }

    /** The statements kept with the database for queries that name no table. */
    QueryDatabases.KeptStatements kept() {
      return database.kept;
    }

    /**
     * Lets the database read the file at {@code path}, and returns the path it reads it by: a hard
     * link in its sandbox, removed when the query ends.
     *
     * @throws LinkException when the link cannot be made (another file system, for one)
     */
    String link(String path) {
      Path file = Path.of(path).toAbsolutePath().normalize();
      Path link = database.directory.resolve(linkName(file));
      try {
        Files.createLink(link, file);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // Linked already by this query (a table named twice): the same file, or a hash collision.
        if (!sameFile(link, file)) {
          throw new LinkException("Cannot link " + path + " into " + database.directory, e);
        }
      } catch (IOException e) {
        throw new LinkException("Cannot link " + path + " into " + database.directory, e);
      }
      database.read(link.getFileName().toString());
      return link.toString();
    }

    /**
     * Tells that the query's set-up created nothing in the database (the query names no table) and
     * will not: the query itself, one {@code SELECT} ({@code QuerySandbox}), creates no schema,
     * table, view or attached database either, so giving the database back needs no search of its
     * catalog (a few milliseconds of DuckDB's work, more than all else a {@code SELECT 1} costs),
     * only a look for what the query spilled. A set-up that records anything ({@link #attach},
     * {@link #schema}, {@link #object}) is emptied of that instead.
     */
    @Override
    public void nothing() {
      if (setUp == SetUp.UNKNOWN) {
        setUp = SetUp.NOTHING;
      }
    }

    @Override
    public void attach(String name) throws SQLException {
      recorded();
      attached.add(name);
      attachEmpty(database.connection, name);
    }

    @Override
    public void schema(String name) {
      recorded();
      if (!OWN_SCHEMAS.contains(name.toLowerCase(Locale.ROOT))) {
        schemas.add(quote(name));
      }
    }

    @Override
    public void object(boolean view, String schema, String name) {
      recorded();
      // Dropped with its schema, unless the schema is DuckDB's own, which stays.
      if (OWN_SCHEMAS.contains(schema.toLowerCase(Locale.ROOT))) {
        objects.add(
            (view ? "DROP VIEW IF EXISTS " : "DROP TABLE IF EXISTS ")
                + quote(schema)
                + "."
                + quote(name));
      }
    }

    private void recorded() {
      setUp = SetUp.RECORDED;
    }

    /**
     * Whether the database, emptied by its set-up's record, is empty: searched every {@code
     * checkEvery}th time (see the class comment).
     */
    private boolean checked() {
      if (recordedEmptyings.incrementAndGet() % checkEvery != 0) {
        return true;
      }
      try {
        List<String> left = database.leftovers();
        if (left.isEmpty()) {
          return true;
        }
        searchAlways = true;
        UNRECORDED.incrementAndGet();
        LOG.error(
            "A query database held more than its query's set-up recorded ({}); it is closed, and"
                + " every query database is searched after its query from now on",
            left);
      } catch (SQLException e) {
        LOG.warn("Cannot search a query database: {}", e.getMessage());
      }
      return false;
    }

    /** Empties the database and lends it to the next query, or closes it. */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      // A database that read many files is closed without being emptied first.
      if (!database.readMany() && emptied()) {
        giveBack(database);
      } else {
        database.close();
      }
    }

    /** Empties the database by what its set-up told, or by a search; whether that succeeded. */
    private boolean emptied() {
      return switch (setUp) {
        case NOTHING -> searchAlways ? database.empty() : database.emptyOfFiles();
        case RECORDED ->
            database.emptyOf(attached, objects, schemas)
                && (searchAlways ? database.empty() : checked());
        case UNKNOWN -> database.empty();
      };
    }
  }

  /** Attaches an empty in-memory database as {@code name} to {@code connection}'s database. */
  static void attachEmpty(Connection connection, String name) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("ATTACH ':memory:' AS " + quote(name));
    }
  }

  /** What a query's set-up told of what it created. */
  private enum SetUp {
    /** Nothing: it may have created anything anywhere, so its database is searched. */
    UNKNOWN,
    /** That it created nothing. */
    NOTHING,
    /** What it created ({@link Sandbox#attach}, {@link Sandbox#schema}, {@link Sandbox#object}). */
    RECORDED
  }

  /**
   * The name a file links under in every query of a database: DuckDB keeps what it learned of a
   * file (its Parquet footer, its cached blocks) by path, so a file read again by a later query
   * must have the same path. The name is a digest of the file's absolute path, followed by its name
   * for whoever looks into the directory; data files are never rewritten in place (and DuckDB reads
   * a file again when its modification time changed).
   */
  static String linkName(Path file) {
    byte[] digest;
    try {
      digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(file.toString().getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
    String name = file.getFileName().toString();
    // The end of the name, whole characters, at most LINK_NAME_TAIL_BYTES of UTF-8.
    int start = name.length();
    int bytes = 0;
    while (start > 0) {
      int codePoint = name.codePointBefore(start);
      int size = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + size > LINK_NAME_TAIL_BYTES) {
        break;
      }
      bytes += size;
      start -= Character.charCount(codePoint);
    }
    return java.util.HexFormat.of().formatHex(digest, 0, 16) + "-" + name.substring(start);
  }

  private static boolean sameFile(Path link, Path file) {
    try {
      return Files.isSameFile(link, file);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The prepared statements a database keeps for queries that name no table, at most {@value
   * KeptStatements#KEPT_STATEMENTS}, the least recently used closed to make way. Used by the one
   * query the database is lent to.
   */
  private static final class KeptStatements implements QueryDatabases.KeptStatements {
    private static final int KEPT_STATEMENTS = 16;
    private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(16, 0.75f, true);

    @Override
    public PreparedStatement get(String sql) {
      PreparedStatement statement = statements.get(sql);
      if (statement != null && closed(statement)) {
        // DuckDB's driver closes a statement whose execution failed (an interrupted one too).
        statements.remove(sql);
        return null;
      }
      return statement;
    }

    private static boolean closed(PreparedStatement statement) {
      try {
        return statement.isClosed();
      } catch (SQLException e) {
        return true;
      }
    }

    @Override
    public boolean keep(String sql, PreparedStatement statement) {
      if (statements.putIfAbsent(sql, statement) != null) {
        return false;
      }
      if (statements.size() > KEPT_STATEMENTS) {
        var eldest = statements.entrySet().iterator();
        PreparedStatement dropped = eldest.next().getValue();
        eldest.remove();
        try {
          dropped.close();
        } catch (SQLException e) {
          LOG.debug("Closing a kept statement failed", e);
        }
      }
      return true;
    }
  }

  /** A file could not be linked into a sandbox. */
  static final class LinkException extends UncheckedIOException {
    LinkException(String message, IOException cause) {
      super(message, cause);
    }
  }

  private record Database(
      Connection connection,
      Path directory,
      Path spill,
      java.util.Set<String> files,
      KeptStatements kept) {
    Database(Connection connection, Path directory, Path spill) {
      this(connection, directory, spill, new java.util.HashSet<>(), new KeptStatements());
    }

    /** Notes that a query read the file linked as {@code name}. */
    void read(String name) {
      synchronized (files) {
        files.add(name);
      }
    }

    /** Whether it has read so many files that what it keeps of them should go. */
    boolean readMany() {
      synchronized (files) {
        return files.size() > FILES_PER_DATABASE;
      }
    }

    /**
     * Removes the links and what queries created: attached databases, views (the Arrow streams
     * DuckDB registers are temporary views), tables and schemas, which are all a query's setup
     * creates (the query itself is one {@code SELECT}). Whether that succeeded and the query
     * spilled nothing ({@link #emptyOfFiles}).
     */
    boolean empty() {
      if (!emptyOfFiles()) {
        return false;
      }
      try {
        List<String> drops = leftovers();
        if (!drops.isEmpty()) {
          try (Statement statement = connection.createStatement()) {
            statement.execute(String.join("; ", drops));
          }
        }
        return true;
      } catch (SQLException e) {
        LOG.warn("Cannot empty a query database: {}", e.getMessage());
        return false;
      }
    }

    /**
     * Removes the links, the Arrow rows view, the databases {@code attached} names, the views and
     * tables {@code objects} drops and the schemas {@code schemas} names (quoted) with all in them;
     * whether that succeeded and the query spilled nothing.
     */
    boolean emptyOf(Set<String> attached, Set<String> objects, Set<String> schemas) {
      if (!emptyOfFiles()) {
        return false;
      }
      StringBuilder drops =
          new StringBuilder("DROP VIEW IF EXISTS temp.main.").append(quote(ARROW_ROWS_VIEW));
      attached.forEach(name -> drops.append("; DETACH DATABASE IF EXISTS ").append(quote(name)));
      objects.forEach(drop -> drops.append("; ").append(drop));
      schemas.forEach(
          schema -> drops.append("; DROP SCHEMA IF EXISTS ").append(schema).append(" CASCADE"));
      try (Statement statement = connection.createStatement()) {
        statement.execute(drops.toString());
        return true;
      } catch (SQLException e) {
        LOG.warn("Cannot empty a query database: {}", e.getMessage());
        return false;
      }
    }

    /**
     * The statements that drop everything queries left in the database, found by searching its
     * catalog; none when it is empty.
     */
    List<String> leftovers() throws SQLException {
      try (Statement statement = connection.createStatement()) {
        // One statement finds all that the query left: each DuckDB statement costs a parse, a
        // plan and a hand-over to its threads, as much as a small query's own.
        List<String> detaches = new ArrayList<>();
        List<String[]> objects = new ArrayList<>();
        java.util.Set<String> schemas = new java.util.HashSet<>();
        try (ResultSet left =
            statement.executeQuery(
                "SELECT 0, database_name, NULL, NULL FROM duckdb_databases()"
                    + " WHERE NOT internal AND database_name <> current_database()"
                    + " UNION ALL SELECT 1, database_name, schema_name, view_name"
                    + " FROM duckdb_views() WHERE NOT internal"
                    + " UNION ALL SELECT 2, database_name, schema_name, table_name"
                    + " FROM duckdb_tables() WHERE NOT internal"
                    + " UNION ALL SELECT 3, database_name, schema_name, NULL"
                    + " FROM duckdb_schemas() WHERE NOT internal"
                    + " ORDER BY 1")) {
          while (left.next()) {
            int kind = left.getInt(1);
            String database = quote(left.getString(2));
            if (kind == 0) {
              detaches.add(database);
            } else if (!detaches.contains(database)) {
              String schema = database + "." + quote(left.getString(3));
              if (kind == 3) {
                schemas.add(schema);
              } else {
                objects.add(
                    new String[] {
                      kind == 1 ? "VIEW" : "TABLE", schema, schema + "." + quote(left.getString(4))
                    });
              }
            }
          }
        }
        // A schema dropped with CASCADE takes its views and tables along: one statement less for
        // each of them (DuckDB's own schemas, main and temp's, are internal and stay).
        List<String> drops = new ArrayList<>();
        detaches.forEach(database -> drops.add("DETACH " + database));
        for (String[] object : objects) {
          if (!schemas.contains(object[1])) {
            drops.add("DROP " + object[0] + " IF EXISTS " + object[2]);
          }
        }
        schemas.forEach(schema -> drops.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
        return drops;
      }
    }

    /**
     * Removes the links, and whether that succeeded and the query spilled nothing: a query that
     * spilled leaves DuckDB's temporary files in the database's spill directory until the database
     * closes (the same files {@code duckdb_temporary_files()} lists, found without a statement).
     */
    boolean emptyOfFiles() {
      try {
        removeLinks();
        if (Files.isDirectory(spill)) {
          try (DirectoryStream<Path> spilled = Files.newDirectoryStream(spill)) {
            if (spilled.iterator().hasNext()) {
              return false; // closing the database removes what the query spilled
            }
          }
        }
        return true;
      } catch (IOException e) {
        LOG.warn("Cannot empty the query database directory {}: {}", directory, e.getMessage());
        return false;
      }
    }

    void close() {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("Closing a query database failed", e);
      }
      try {
        removeLinks();
        Files.delete(directory);
      } catch (IOException e) {
        LOG.debug("Cannot remove the query database directory {}", directory, e);
      }
      SpareDatabases.removeDirectory(spill);
    }

    private void removeLinks() throws IOException {
      try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
        for (Path file : files) {
          Files.delete(file);
        }
      }
    }
  }
}
