package io.lakestream.flight.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.flight.sql.TableReferences;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Exposes a table to DuckDB as a view instead of a copy, so that DuckDB pushes the query's
 * projection and filters into the scans: the lake snapshot's Parquet files through DuckDB's own
 * {@code read_parquet} (columns matched by Iceberg field id, so renamed and added columns read
 * right; a column a file lacks reads as null). The log tail comes from the {@link TailCache}: its
 * large cached pieces as Parquet files in the same {@code read_parquet} scan, the rest copied from
 * the decoded Arrow batches into a DuckDB table, with only the columns the query may use, that the
 * view adds with {@code UNION ALL}. DuckDB pushes join filters into a scan but not through {@code
 * UNION ALL}, so a view that is one scan joins much faster.
 *
 * <p>A primary-key table's view merges by key: the lake's rows without those an equality delete of
 * a later sequence number removes, and without the keys the log tail changes; then each changed
 * key's last change in the tail unless it is a delete. Filters and projections still reach the
 * lake's scans; the tail is folded whole (a key's last change decides whether a filter holds).
 *
 * <p>Only tables whose snapshot can be read that way take this path ({@link #files}): a log table
 * or plain Iceberg table without delete files, or a primary-key table whose deletes are equality
 * deletes on its key and whose partitions are functions of its key, with top-level primitive
 * columns other than {@code uuid}, whose files are Parquet on the local file system. Others are
 * loaded the reference way.
 *
 * <p>The views' SQL is {@link ViewDefinitions}'; their tail tables are filled by {@link
 * TailTables}. Thread safe; each call works on the caller's DuckDB connection.
 */
public final class LakeViews {
  /** The internal schema of tail tables in each query's database. */
  public static final String TAIL_SCHEMA = "lakestream_tail";

  /**
   * The temporary view DuckDB reads Arrow rows handed to it through: registered again (replaced)
   * for each hand-over, one after another on a connection, so a database holds one such view at
   * most, under a name known without searching its catalog.
   */
  public static final String ARROW_ROWS_VIEW = "lakestream_rows";

  private final TailCache tails;
  private final SnapshotFiles snapshotFiles;
  private final TailTables tailTables;

  private final AtomicLong names = new AtomicLong();

  public LakeViews(BufferAllocator allocator, TailCache tails, SnapshotFiles snapshotFiles) {
    this.tails = requireNonNull(tails, "tails is null");
    this.snapshotFiles = requireNonNull(snapshotFiles, "snapshotFiles is null");
    this.tailTables = new TailTables(requireNonNull(allocator, "allocator is null"), tails);
  }

  /**
   * The local Parquet files of a table's snapshot when DuckDB can read them as they are, or empty
   * when the table has to be loaded the reference way (delete files of a log table, a primary-key
   * table's deletes not on its key or partitions not a function of it, nested or uuid columns,
   * files not on the local file system or not Parquet).
   *
   * @param snapshotId the snapshot to read; empty for a table without one (no files)
   * @param primaryKey whether the table is a primary-key table
   */
  public Optional<SnapshotFiles.LakeFiles> files(
      Table table, OptionalLong snapshotId, boolean primaryKey) {
    for (Types.NestedField column : table.schema().columns()) {
      Type type = column.type();
      if (!type.isPrimitiveType() || type.typeId() == Type.TypeID.UUID) {
        return Optional.empty();
      }
      if (primaryKey
          && column.name().toLowerCase(Locale.ROOT).startsWith(ViewDefinitions.INTERNAL_PREFIX)) {
        return Optional.empty();
      }
    }
    if (primaryKey && !keyDecidesPartition(table)) {
      return Optional.empty();
    }
    if (snapshotId.isEmpty()) {
      return Optional.of(SnapshotFiles.LakeFiles.NONE);
    }
    Snapshot snapshot = table.snapshot(snapshotId.getAsLong());
    if (snapshot == null) {
      throw new IllegalArgumentException(
          "Table " + table.name() + " has no snapshot " + snapshotId.getAsLong());
    }
    return primaryKey
        ? snapshotFiles.keyed(table, snapshot)
        : snapshotFiles.files(table, snapshot).map(SnapshotFiles.LakeFiles::of);
  }

  /**
   * Whether a table has a key and every partition field of every spec is a function of it: then a
   * key's rows are all in one partition, and matching rows by key alone is exact.
   */
  private static boolean keyDecidesPartition(Table table) {
    Set<Integer> key = table.schema().identifierFieldIds();
    if (key.isEmpty()) {
      return false;
    }
    for (PartitionSpec spec : table.specs().values()) {
      for (PartitionField field : spec.fields()) {
        if (!key.contains(field.sourceId())) {
          return false;
        }
      }
    }
    return true;
  }

  /** The local file system path of a file location, or empty for any other storage. */
  static Optional<String> localPath(String location) {
    if (location.startsWith("/")) {
      return Optional.of(location);
    }
    if (location.startsWith("file:")) {
      return Optional.of(Path.of(URI.create(location)).toString());
    }
    return Optional.empty();
  }

  /**
   * Creates view {@code target}: the rows of {@code files} read with {@code read_parquet}, then the
   * rows of the plan's log ranges when there is a plan. The log rows are fetched first, so that one
   * statement runs {@code setUp}, creates the tail table and creates the view; the rows are copied
   * into the table after (the view reads the table when queried).
   *
   * @param setUp statements to run before the view's own (the query's schemas), or none
   * @param tailDatabase the database whose tail schema ({@link #createTailSchema}) the view's tail
   *     table goes in
   * @param table the lake table (its current schema is the view's)
   * @param files the snapshot's files, as {@link #files} listed them; each must be an allowed path
   *     of the database
   * @param plan the union read plan of a streaming table, or empty for a plain Iceberg table
   * @param stream the streaming table of the plan, or null without a plan
   * @param parsed what the query reads, to fetch only the log columns it may use
   */
  public List<TailCache.TailFile> create(
      Connection duckdb,
      java.util.function.UnaryOperator<String> located,
      List<String> setUp,
      String tailDatabase,
      String target,
      Table table,
      SnapshotFiles.LakeFiles files,
      Optional<UnionScanPlan> plan,
      io.lakestream.client.Table stream,
      TableReferences.Parsed parsed)
      throws SQLException {
    String tailName = "tail_" + names.incrementAndGet();
    String tail = TailTables.TailTable.qualified(tailDatabase, tailName);
    boolean keyed = plan.isPresent() && plan.get().primaryKey();
    List<String> statements = new ArrayList<>(setUp);
    List<String> types = tailTables.knownTypes(table);
    boolean tailExists = false;
    if (types == null) {
      execute(duckdb, statements);
      statements.clear();
      types = tailTables.declare(duckdb, tail, table, keyed); // creates the tail table
      tailExists = true;
    }
    List<TailCache.TailFile> tailFiles = new ArrayList<>();
    try (TailTables.Fetched fetched =
        plan.isPresent() && !plan.get().logRanges().isEmpty()
            ? tailTables.fetch(table, plan.get(), requireNonNull(stream, "stream is null"), keyed)
            : new TailTables.Fetched()) {
      tailFiles.addAll(fetched.files());
      boolean tailRows = fetched.hasRows();
      String view;
      boolean tailRead;
      if (keyed) {
        tailRead = tailRows || files.data().isEmpty();
        view =
            ViewDefinitions.createKeyedView(
                target, table, types, files.map(located), tail, tailRows);
      } else {
        List<String> scanned = new ArrayList<>();
        files.dataPaths().forEach(path -> scanned.add(located.apply(path)));
        tailFiles.forEach(file -> scanned.add(located.apply(file.path().toString())));
        tailRead = tailRows || scanned.isEmpty();
        view = ViewDefinitions.createView(target, table, types, scanned, tail, tailRows);
      }
      if (tailRead && !tailExists) {
        statements.add(TailTables.createStatement(tail, table, types, keyed));
      }
      statements.add(view);
      execute(duckdb, statements);
      if (tailRows) {
        tailTables.load(
            duckdb,
            new TailTables.TailTable(tailDatabase, tailName, types),
            table,
            fetched,
            parsed,
            keyed);
      }
      return tailFiles;
    } catch (SQLException | RuntimeException e) {
      release(tailFiles);
      throw e;
    }
  }

  private static void execute(Connection duckdb, List<String> statements) throws SQLException {
    if (statements.isEmpty()) {
      return;
    }
    try (java.sql.Statement statement = duckdb.createStatement()) {
      statement.execute(String.join("; ", statements));
    }
  }

  /**
   * The statement that creates the schema of tail tables in database {@code database}, the query
   * database's own catalog; a set-up runs it once, with other statements of its own.
   */
  public static String createTailSchema(String database) {
    return "CREATE SCHEMA IF NOT EXISTS " + quote(database) + "." + quote(TAIL_SCHEMA);
  }

  /** Closes the database that writes tail files. */
  public void close() {
    tailTables.close();
  }

  /** Lets tail files that {@link #create} handed out go once the cache drops them. */
  public void release(List<TailCache.TailFile> files) {
    if (!files.isEmpty()) {
      tails.release(files);
    }
  }

  public static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  public static String literal(String value) {
    return "'" + value.replace("'", "''") + "'";
  }
}
