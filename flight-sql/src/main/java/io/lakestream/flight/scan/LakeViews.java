package io.lakestream.flight.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.flight.sql.TableReferences;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

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
 * <p>Thread safe; each call works on the caller's DuckDB connection.
 */
public final class LakeViews {
  /** The internal schema of tail tables in each query's database. */
  static final String TAIL_SCHEMA = "lakestream_tail";

  private static final int FLUSH_ROWS = 256 * 1024;

  /** Prefix of the columns a primary-key table's view adds; a table with such a column has none. */
  private static final String INTERNAL_PREFIX = "__lakestream_";

  /**
   * A primary-key tail row's change type (the codes of {@link io.lakestream.client.ChangeType}).
   */
  private static final String CHANGE_COLUMN = INTERNAL_PREFIX + "change";

  private static final String OFFSET_COLUMN = INTERNAL_PREFIX + "offset";
  private static final String SEQUENCE_COLUMN = INTERNAL_PREFIX + "sequence";
  private static final String LAST_COLUMN = INTERNAL_PREFIX + "last";
  private static final byte UPDATE_BEFORE = io.lakestream.client.ChangeType.UPDATE_BEFORE.code();
  private static final byte DELETE = io.lakestream.client.ChangeType.DELETE.code();

  private final BufferAllocator allocator;
  private final TailCache tails;
  private final SnapshotFiles snapshotFiles;

  /** DuckDB's column types of a table schema: never changes for a schema id. */
  private record ColumnTypesKey(String tableUuid, int schemaId) {}

  private final Map<ColumnTypesKey, List<String>> columnTypes =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ColumnTypesKey, List<String>> eldest) {
          return size() > 1024;
        }
      };
  private final AtomicLong names = new AtomicLong();
  // Writes cached tail pieces as Parquet files: query databases may write no file (and sandboxed
  // ones read only their own directory), so a database of the engine's own does it.
  private final Object writerLock = new Object();
  private Connection writer;

  public LakeViews(BufferAllocator allocator, TailCache tails, SnapshotFiles snapshotFiles) {
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.tails = requireNonNull(tails, "tails is null");
    this.snapshotFiles = requireNonNull(snapshotFiles, "snapshotFiles is null");
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
      if (primaryKey && column.name().toLowerCase(Locale.ROOT).startsWith(INTERNAL_PREFIX)) {
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
   * rows of the plan's log ranges when there is a plan.
   *
   * @param tailDatabase the database whose tail schema the view's tail table goes in, as {@link
   *     #tailDatabase} returned it
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
      String tailDatabase,
      String target,
      Table table,
      SnapshotFiles.LakeFiles files,
      Optional<UnionScanPlan> plan,
      io.lakestream.client.Table stream,
      TableReferences.Parsed parsed)
      throws SQLException {
    String tailName = "tail_" + names.incrementAndGet();
    String tail = TailTable.qualified(tailDatabase, tailName);
    List<String> types = tailTable(duckdb, tail, table);
    boolean keyed = plan.isPresent() && plan.get().primaryKey();
    if (keyed) {
      try (Statement statement = duckdb.createStatement()) {
        statement.execute("ALTER TABLE " + tail + " ADD COLUMN " + CHANGE_COLUMN + " TINYINT");
        statement.execute("ALTER TABLE " + tail + " ADD COLUMN " + OFFSET_COLUMN + " BIGINT");
      }
    }
    List<TailCache.TailFile> tailFiles = new ArrayList<>();
    try {
      boolean tailRows =
          plan.isPresent()
              && !plan.get().logRanges().isEmpty()
              && loadTail(
                  duckdb,
                  new TailTable(tailDatabase, tailName, types),
                  table,
                  plan.get(),
                  requireNonNull(stream, "stream is null"),
                  parsed,
                  keyed,
                  tailFiles);
      if (keyed) {
        createKeyedView(duckdb, target, table, types, files.map(located), tail, tailRows);
        return tailFiles;
      }
      List<String> scanned = new ArrayList<>();
      files.dataPaths().forEach(path -> scanned.add(located.apply(path)));
      tailFiles.forEach(file -> scanned.add(located.apply(file.path().toString())));
      createView(duckdb, target, table, types, scanned, tail, tailRows);
      return tailFiles;
    } catch (SQLException | RuntimeException e) {
      release(tailFiles);
      throw e;
    }
  }

  /** Creates the schema of a database's tail tables and returns the database's name. */
  public String tailDatabase(Connection duckdb) throws SQLException {
    // One round trip: the schema goes to the current database, whose name the query returns.
    try (Statement statement = duckdb.createStatement();
        ResultSet current =
            statement.executeQuery(
                "CREATE SCHEMA IF NOT EXISTS "
                    + quote(TAIL_SCHEMA)
                    + "; SELECT current_database()")) {
      current.next();
      return current.getString(1);
    }
  }

  /** Closes the database that writes tail files. */
  public void close() {
    synchronized (writerLock) {
      if (writer != null) {
        try {
          writer.close();
        } catch (SQLException e) {
          // nothing is left to write
        }
        writer = null;
      }
    }
  }

  /** Lets tail files that {@link #create} handed out go once the cache drops them. */
  public void release(List<TailCache.TailFile> files) {
    if (!files.isEmpty()) {
      tails.release(files);
    }
  }

  /**
   * Creates the view: {@code read_parquet} of {@code files} (by field id, in the table's current
   * schema), {@code UNION ALL} the tail table when it has rows or there is no file. Without the
   * tail table the view is one scan, into which DuckDB pushes join filters; it does not push them
   * through {@code UNION ALL}, even with an empty side.
   */
  private static void createView(
      Connection duckdb,
      String target,
      Table table,
      List<String> types,
      List<String> files,
      String tail,
      boolean tailRows)
      throws SQLException {
    List<Types.NestedField> columns = table.schema().columns();
    String select = select(columns);
    StringBuilder view = new StringBuilder();
    if (!files.isEmpty()) {
      view.append(scan(table, types, columns, files, ""));
    }
    if (tailRows || files.isEmpty()) {
      view.append(files.isEmpty() ? "" : " UNION ALL ")
          .append(select)
          .append(" FROM ")
          .append(tail);
    }
    try (Statement statement = duckdb.createStatement()) {
      statement.execute("CREATE VIEW " + target + " AS " + view);
    }
  }

  /**
   * Creates a primary-key table's view: the lake's rows that no later equality delete removes and
   * whose key the tail does not change, {@code UNION ALL} the last change of each key in the tail
   * unless it is a delete. A key's changes are all in one bucket of one partition, so its offsets
   * order them.
   */
  private static void createKeyedView(
      Connection duckdb,
      String target,
      Table table,
      List<String> types,
      SnapshotFiles.LakeFiles files,
      String tail,
      boolean tailRows)
      throws SQLException {
    List<Types.NestedField> columns = table.schema().columns();
    List<Types.NestedField> key = new ArrayList<>();
    for (Types.NestedField column : columns) {
      if (table.schema().identifierFieldIds().contains(column.fieldId())) {
        key.add(column);
      }
    }
    StringBuilder view = new StringBuilder();
    if (!files.data().isEmpty()) {
      boolean deletes = !files.deletes().isEmpty();
      for (Types.NestedField column : columns) {
        view.append(view.isEmpty() ? "SELECT " : ", ")
            .append("lakestream_lake.")
            .append(quote(column.name()));
      }
      view.append(" FROM (")
          .append(sequencedScan(table, types, columns, files.data(), deletes))
          .append(") AS lakestream_lake");
      // Anti joins rather than NOT EXISTS: DuckDB pushes the query's filters through them into the
      // lake's scans, not through the joins it makes of correlated subqueries.
      if (deletes) {
        view.append(" ANTI JOIN (")
            .append(sequencedScan(table, types, key, files.deletes(), true))
            .append(") AS lakestream_deleted ON ")
            .append(sameKey(key, "lakestream_deleted", "lakestream_lake"))
            .append(" AND lakestream_deleted.")
            .append(SEQUENCE_COLUMN)
            .append(" > lakestream_lake.")
            .append(SEQUENCE_COLUMN);
      }
      if (tailRows) {
        view.append(" ANTI JOIN ")
            .append(tail)
            .append(" AS lakestream_changed ON ")
            .append(sameKey(key, "lakestream_changed", "lakestream_lake"));
      }
    }
    if (tailRows || files.data().isEmpty()) {
      List<String> keyNames = key.stream().map(column -> quote(column.name())).toList();
      view.append(files.data().isEmpty() ? "" : " UNION ALL ")
          .append(select(columns))
          .append(" FROM (SELECT *, row_number() OVER (PARTITION BY ")
          .append(String.join(", ", keyNames))
          .append(" ORDER BY ")
          .append(OFFSET_COLUMN)
          .append(" DESC) AS ")
          .append(LAST_COLUMN)
          .append(" FROM ")
          .append(tail)
          .append(" WHERE ")
          .append(CHANGE_COLUMN)
          .append(" <> ")
          .append(UPDATE_BEFORE)
          .append(") WHERE ")
          .append(LAST_COLUMN)
          .append(" = 1 AND ")
          .append(CHANGE_COLUMN)
          .append(" <> ")
          .append(DELETE);
    }
    try (Statement statement = duckdb.createStatement()) {
      statement.execute("CREATE VIEW " + target + " AS " + view);
    }
  }

  /**
   * The scans of {@code files}, one per sequence number with that number as column {@value
   * #SEQUENCE_COLUMN} when {@code sequenced}, else one scan of them all.
   */
  private static String sequencedScan(
      Table table,
      List<String> types,
      List<Types.NestedField> columns,
      List<SnapshotFiles.SequencedFile> files,
      boolean sequenced) {
    if (!sequenced) {
      return scan(
          table,
          types,
          columns,
          files.stream().map(SnapshotFiles.SequencedFile::path).toList(),
          "");
    }
    Map<Long, List<String>> bySequence = new TreeMap<>();
    for (SnapshotFiles.SequencedFile file : files) {
      bySequence.computeIfAbsent(file.sequence(), sequence -> new ArrayList<>()).add(file.path());
    }
    List<String> scans = new ArrayList<>();
    bySequence.forEach(
        (sequence, paths) ->
            scans.add(
                scan(
                    table,
                    types,
                    columns,
                    paths,
                    ", CAST(" + sequence + " AS BIGINT) AS " + SEQUENCE_COLUMN)));
    return String.join(" UNION ALL ", scans);
  }

  /**
   * A {@code SELECT} of {@code columns} (of the table's current schema, in DuckDB's {@code types}
   * of all its columns), then {@code extra} (more of the select list, or nothing), from {@code
   * read_parquet} of {@code files}.
   */
  private static String scan(
      Table table,
      List<String> types,
      List<Types.NestedField> columns,
      List<String> files,
      String extra) {
    List<Types.NestedField> all = table.schema().columns();
    boolean byName = table.schemas().size() == 1;
    StringBuilder scan = new StringBuilder();
    if (byName) {
      // The types the tail table and the query's shape have; a cast to the type a column already
      // has is none, so DuckDB still pushes filters on it into the scan.
      for (Types.NestedField column : columns) {
        String name = quote(column.name());
        scan.append(scan.isEmpty() ? "SELECT " : ", ")
            .append("CAST(")
            .append(name)
            .append(" AS ")
            .append(types.get(all.indexOf(column)))
            .append(") AS ")
            .append(name);
      }
    } else {
      scan.append(select(columns));
    }
    scan.append(extra).append(" FROM read_parquet([");
    for (int i = 0; i < files.size(); i++) {
      scan.append(i == 0 ? "" : ", ").append(literal(files.get(i)));
    }
    scan.append("], hive_partitioning = false, ");
    if (byName) {
      // A table that never changed its schema has its columns under their names in every file.
      // Matching by name makes DuckDB read each file's footer as it binds the view, so it knows
      // how many rows each table has and orders joins right; with a schema it reads none and
      // guesses (TPC-H Q4 at scale 1: 0.06 s against 0.12-0.19 s).
      scan.append("union_by_name = true)");
    } else {
      scan.append("schema = map {");
      for (int i = 0; i < columns.size(); i++) {
        Types.NestedField column = columns.get(i);
        scan.append(i == 0 ? "" : ", ")
            .append(column.fieldId())
            .append(": {name: ")
            .append(literal(column.name()))
            .append(", type: ")
            .append(literal(types.get(all.indexOf(column))))
            .append(", default_value: NULL}");
      }
      scan.append("})");
    }
    return scan.toString();
  }

  private static String select(List<Types.NestedField> columns) {
    StringBuilder select = new StringBuilder();
    for (Types.NestedField column : columns) {
      select.append(select.isEmpty() ? "SELECT " : ", ").append(quote(column.name()));
    }
    return select.toString();
  }

  private static String sameKey(List<Types.NestedField> key, String left, String right) {
    List<String> equal = new ArrayList<>();
    for (Types.NestedField column : key) {
      String name = quote(column.name());
      equal.add(left + "." + name + " = " + right + "." + name);
    }
    return String.join(" AND ", equal);
  }

  /**
   * Creates the empty table {@code tail} with the table's columns in DuckDB's types, and returns
   * those types. The first time a table schema is seen, DuckDB derives them from the Arrow schema;
   * later the table is declared with the types it derived then.
   */
  private List<String> tailTable(Connection duckdb, String tail, Table table) throws SQLException {
    ColumnTypesKey key = new ColumnTypesKey(table.uuid().toString(), table.schema().schemaId());
    List<String> known;
    synchronized (columnTypes) {
      known = columnTypes.get(key);
    }
    if (known != null) {
      StringBuilder create = new StringBuilder("CREATE TABLE ").append(tail).append(" (");
      List<Types.NestedField> columns = table.schema().columns();
      for (int i = 0; i < columns.size(); i++) {
        create
            .append(i == 0 ? "" : ", ")
            .append(quote(columns.get(i).name()))
            .append(' ')
            .append(known.get(i));
      }
      try (Statement statement = duckdb.createStatement()) {
        statement.execute(create.append(')').toString());
      }
      return known;
    }
    Schema arrowSchema = IcebergArrowSchemas.toArrowSchema(table.schema());
    try (VectorSchemaRoot empty = VectorSchemaRoot.create(arrowSchema, allocator)) {
      insert(duckdb, allocator, List.of(empty), "CREATE TABLE " + tail + " AS SELECT * FROM ");
    }
    List<String> types = new ArrayList<>();
    try (Statement statement = duckdb.createStatement();
        ResultSet described = statement.executeQuery("DESCRIBE " + tail)) {
      while (described.next()) {
        types.add(described.getString("column_type"));
      }
    }
    synchronized (columnTypes) {
      columnTypes.put(key, List.copyOf(types));
    }
    return types;
  }

  /**
   * Reads the plan's log ranges from the tail cache: whole cached pieces as files (added to {@code
   * files}, which the caller releases), the other rows copied into table {@code tail}, only the
   * columns the query may use. A primary-key table's rows all go to the table, with their key,
   * change type and offset, to be folded by key.
   *
   * @return whether any rows went into the table
   */
  private boolean loadTail(
      Connection duckdb,
      TailTable tail,
      Table table,
      UnionScanPlan plan,
      io.lakestream.client.Table stream,
      TableReferences.Parsed parsed,
      boolean keyed,
      List<TailCache.TailFile> files)
      throws SQLException {
    Set<Integer> key = keyed ? table.schema().identifierFieldIds() : Set.of();
    List<Types.NestedField> copied = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      if (parsed.reads(column.name()) || key.contains(column.fieldId())) {
        copied.add(column);
      }
    }
    List<TailCache.Slice> slices =
        tails.read(
            plan.table(),
            stream,
            plan.logRanges(),
            keyed ? null : (rows, target) -> writeFile(rows, target, table.schema()));
    Tail pending = new Tail(duckdb, tail, table.schema().columns(), copied, keyed);
    boolean tableRows = false;
    try {
      for (int i = 0; i < slices.size(); i++) {
        TailCache.Slice slice = slices.get(i);
        if (slice.file() != null) {
          slices.set(i, null);
          files.add(slice.file());
        } else {
          VectorSchemaRoot rows = keyed ? withOffsets(slice.root(), slice.offset()) : slice.root();
          slices.set(i, null);
          pending.add(slice.schemaId(), rows);
          tableRows = true;
        }
      }
      pending.flush();
    } finally {
      pending.discard();
      for (TailCache.Slice slice : slices) {
        if (slice == null) {
          continue;
        }
        if (slice.file() != null) {
          files.add(slice.file()); // released by the caller with the others
        } else {
          slice.root().close();
        }
      }
    }
    return tableRows;
  }

  /**
   * Writes a cached piece of log rows as a Parquet file whose columns carry the lake's field ids,
   * so that the view reads it as it reads the lake's files.
   */
  private void writeFile(VectorSchemaRoot rows, Path target, org.apache.iceberg.Schema schema)
      throws SQLException {
    StringBuilder select = new StringBuilder();
    StringBuilder ids = new StringBuilder();
    for (FieldVector vector : rows.getFieldVectors()) {
      String id = vector.getField().getMetadata().get(IcebergArrowSchemas.FIELD_ID_KEY);
      if (id == null) {
        Types.NestedField column = schema.findField(vector.getName());
        if (column == null) {
          continue; // a dropped column: no view reads it
        }
        id = Integer.toString(column.fieldId());
      }
      select.append(select.isEmpty() ? "" : ", ").append(quote(vector.getName()));
      ids.append(ids.isEmpty() ? "" : ", ")
          .append(literal(vector.getName()))
          .append(": ")
          .append(Integer.parseInt(id));
    }
    if (select.isEmpty()) {
      throw new IllegalStateException("No column of the rows is a column of the lake table");
    }
    synchronized (writerLock) {
      if (writer == null) {
        Properties settings = new Properties();
        settings.setProperty("autoinstall_known_extensions", "false");
        settings.setProperty("autoload_known_extensions", "false");
        settings.setProperty("threads", "1");
        writer = DriverManager.getConnection("jdbc:duckdb:", settings);
      }
      writeFile(writer, rows, target, select, ids);
    }
  }

  private void writeFile(
      Connection writer, VectorSchemaRoot rows, Path target, CharSequence select, CharSequence ids)
      throws SQLException {
    insert(
        writer,
        rows.getFieldVectors().get(0).getAllocator(),
        List.of(rows),
        name ->
            "COPY (SELECT "
                + select
                + " FROM "
                + name
                + ") TO "
                + literal(target.toString())
                + " (FORMAT parquet, COMPRESSION uncompressed, FIELD_IDS {"
                + ids
                + "}); DROP VIEW IF EXISTS temp.main."
                + quote(name)); // the stream's registration, which the writer would keep
  }

  /**
   * A query's tail table: in database {@code database}, schema {@value #TAIL_SCHEMA}, named {@code
   * name}, with DuckDB's {@code types} of the lake table's columns (followed, for a primary-key
   * table, by its change type and offset columns).
   */
  private record TailTable(String database, String name, List<String> types) {
    /** Fully qualified: a view in an attached catalog resolves names in that catalog. */
    static String qualified(String database, String name) {
      return quote(database) + "." + quote(TAIL_SCHEMA) + "." + quote(name);
    }
  }

  /** Writes one value of a row of some vector to a DuckDB appender. */
  @FunctionalInterface
  private interface ValueWriter {
    void write(DuckDBAppender appender, int row) throws SQLException;
  }

  /** Log rows waiting to be copied into a tail table: slices of batches of one schema. */
  private final class Tail {
    private final Connection duckdb;
    private final TailTable tail;
    private final String table;
    private final List<Types.NestedField> columns;
    private final List<Types.NestedField> copied;
    private final boolean keyed;
    private final List<VectorSchemaRoot> slices = new ArrayList<>();
    private int schemaId = -1;
    private BufferAllocator allocatorRoot;
    private long rows;

    /**
     * @param columns the lake table's columns (the tail table's)
     * @param copied the columns to copy values of; the others stay null
     * @param keyed whether the rows are a primary-key table's changes, with offsets ({@link
     *     #withOffsets}), whose change types and offsets are copied too
     */
    Tail(
        Connection duckdb,
        TailTable tail,
        List<Types.NestedField> columns,
        List<Types.NestedField> copied,
        boolean keyed) {
      this.duckdb = duckdb;
      this.tail = tail;
      this.table = TailTable.qualified(tail.database(), tail.name());
      this.columns = columns;
      this.copied = copied;
      this.keyed = keyed;
    }

    /**
     * Adds rows to copy; the tail owns (and closes) them. Rows go to DuckDB in groups of one schema
     * and one root allocator (buffers cannot move between roots, and each log scanner has its own).
     */
    void add(int batchSchemaId, VectorSchemaRoot slice) throws SQLException {
      BufferAllocator root = rootOf(slice);
      if (batchSchemaId != schemaId || root != allocatorRoot || rows >= FLUSH_ROWS) {
        flush();
        schemaId = batchSchemaId;
        allocatorRoot = root;
      }
      slices.add(slice);
      rows += slice.getRowCount();
    }

    void flush() throws SQLException {
      if (slices.isEmpty()) {
        return;
      }
      try {
        if (rows <= APPENDED_ROWS && append()) {
          return;
        }
        VectorSchemaRoot sample = slices.get(0);
        List<String> targets = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        for (Types.NestedField column : copied) {
          FieldVector vector = vectorOf(sample, column);
          if (vector != null) {
            targets.add(quote(column.name()));
            sources.add(quote(vector.getName()));
          }
        }
        if (keyed) {
          if (sample.getVector(ArrowValues.CHANGE_TYPE_COLUMN) == null) {
            throw new IllegalStateException("A primary-key table's log batch has no change types");
          }
          targets.add(CHANGE_COLUMN);
          sources.add(quote(ArrowValues.CHANGE_TYPE_COLUMN));
          targets.add(OFFSET_COLUMN);
          sources.add(OFFSET_COLUMN);
        }
        if (targets.isEmpty() || sample.getFieldVectors().isEmpty()) {
          // The rows count, their values are not used (or the batches have none of them).
          try (Statement statement = duckdb.createStatement()) {
            statement.execute(
                "INSERT INTO "
                    + table
                    + " ("
                    + quote(columns.get(0).name())
                    + ") SELECT NULL FROM range("
                    + rows
                    + ")");
          }
        } else {
          insert(
              duckdb,
              sample.getFieldVectors().get(0).getAllocator(),
              slices,
              "INSERT INTO "
                  + table
                  + " ("
                  + String.join(", ", targets)
                  + ") SELECT "
                  + String.join(", ", sources)
                  + " FROM ");
        }
      } finally {
        discard();
      }
    }

    void discard() {
      slices.forEach(VectorSchemaRoot::close);
      slices.clear();
      rows = 0;
    }

    /**
     * Copies the rows with DuckDB's appender when every copied column's values have exactly their
     * column's DuckDB type. For a few rows that is much cheaper than an Arrow stream, whose batches
     * DuckDB's threads pull through the JVM (measured with ten rows: 1-2 ms against 3-5 ms).
     *
     * @return false, having copied nothing, when a column needs DuckDB's conversions
     */
    private boolean append() throws SQLException {
      List<List<ValueWriter>> writers = new ArrayList<>();
      for (VectorSchemaRoot slice : slices) {
        List<ValueWriter> sliceWriters = writers(slice);
        if (sliceWriters == null) {
          return false;
        }
        writers.add(sliceWriters);
      }
      try (DuckDBAppender appender =
          duckdb
              .unwrap(DuckDBConnection.class)
              .createAppender(tail.database(), TAIL_SCHEMA, tail.name())) {
        for (int i = 0; i < slices.size(); i++) {
          int count = slices.get(i).getRowCount();
          for (int row = 0; row < count; row++) {
            appender.beginRow();
            for (ValueWriter writer : writers.get(i)) {
              writer.write(appender, row);
            }
            appender.endRow();
          }
        }
      }
      return true;
    }

    /**
     * The writers of a slice's values, one per column of the tail table in order (null for a column
     * not copied); null when a copied column's values are not of its DuckDB type.
     */
    private List<ValueWriter> writers(VectorSchemaRoot slice) {
      List<ValueWriter> writers = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        Types.NestedField column = columns.get(i);
        FieldVector vector = copied.contains(column) ? vectorOf(slice, column) : null;
        ValueWriter writer =
            vector == null ? (appender, row) -> appender.appendNull() : columnWriter(vector, i);
        if (writer == null) {
          return null;
        }
        writers.add(writer);
      }
      if (keyed) {
        ValueWriter change = writer(slice.getVector(ArrowValues.CHANGE_TYPE_COLUMN), "TINYINT");
        ValueWriter offset = writer(slice.getVector(OFFSET_COLUMN), "BIGINT");
        if (change == null || offset == null) {
          return null;
        }
        writers.add(change);
        writers.add(offset);
      }
      return writers;
    }

    private ValueWriter columnWriter(FieldVector vector, int column) {
      return writer(vector, tail.types().get(column));
    }
  }

  /** Rows a tail table takes through DuckDB's appender at most; more go as an Arrow stream. */
  private static final int APPENDED_ROWS = 2048;

  /**
   * A writer of a vector's values into a column of DuckDB type {@code type}, or null when the
   * vector does not hold values of exactly that type (or is null).
   */
  private static ValueWriter writer(FieldVector vector, String type) {
    ValueWriter values =
        switch (vector) {
          case null -> null;
          case BitVector v when type.equals("BOOLEAN") ->
              (appender, row) -> appender.append(v.get(row) != 0);
          case TinyIntVector v when type.equals("TINYINT") ->
              (appender, row) -> appender.append(v.get(row));
          case SmallIntVector v when type.equals("SMALLINT") ->
              (appender, row) -> appender.append(v.get(row));
          case IntVector v when type.equals("INTEGER") ->
              (appender, row) -> appender.append(v.get(row));
          case BigIntVector v when type.equals("BIGINT") ->
              (appender, row) -> appender.append(v.get(row));
          case Float4Vector v when type.equals("FLOAT") ->
              (appender, row) -> appender.append(v.get(row));
          case Float8Vector v when type.equals("DOUBLE") ->
              (appender, row) -> appender.append(v.get(row));
          case VarCharVector v when type.equals("VARCHAR") ->
              (appender, row) -> appender.append(new String(v.get(row), StandardCharsets.UTF_8));
          case DateDayVector v when type.equals("DATE") ->
              (appender, row) -> appender.appendEpochDays(v.get(row));
          case TimeMicroVector v when type.equals("TIME") ->
              (appender, row) -> appender.appendDayMicros(v.get(row));
          case TimeStampMicroVector v when type.equals("TIMESTAMP") ->
              (appender, row) -> appender.appendEpochMicros(v.get(row));
          case DecimalVector v
              when type.equals("DECIMAL(" + v.getPrecision() + "," + v.getScale() + ")") ->
              (appender, row) -> appender.append(v.getObject(row));
          default -> null;
        };
    if (values == null) {
      return null;
    }
    return (appender, row) -> {
      if (vector.isNull(row)) {
        appender.appendNull();
      } else {
        values.write(appender, row);
      }
    };
  }

  /**
   * The rows with a column {@value #OFFSET_COLUMN} of their log offsets, the first {@code first};
   * the result owns the rows' vectors.
   */
  private static VectorSchemaRoot withOffsets(VectorSchemaRoot rows, long first) {
    if (rows.getFieldVectors().isEmpty()) {
      throw new IllegalStateException("A primary-key table's log batch has no columns");
    }
    int count = rows.getRowCount();
    BigIntVector offsets =
        new BigIntVector(OFFSET_COLUMN, rows.getFieldVectors().get(0).getAllocator());
    try {
      offsets.allocateNew(count);
      for (int row = 0; row < count; row++) {
        offsets.set(row, first + row);
      }
      offsets.setValueCount(count);
    } catch (RuntimeException e) {
      offsets.close();
      throw e;
    }
    List<FieldVector> vectors = new ArrayList<>(rows.getFieldVectors());
    vectors.add(offsets);
    VectorSchemaRoot withOffsets = new VectorSchemaRoot(vectors);
    withOffsets.setRowCount(count);
    return withOffsets;
  }

  private static BufferAllocator rootOf(VectorSchemaRoot rows) {
    return rows.getFieldVectors().isEmpty()
        ? null
        : rows.getFieldVectors().get(0).getAllocator().getRoot();
  }

  /** A batch's vector of a lake column: by Iceberg field id, else by name; null if it has none. */
  private static FieldVector vectorOf(VectorSchemaRoot root, Types.NestedField column) {
    String id = Integer.toString(column.fieldId());
    for (FieldVector vector : root.getFieldVectors()) {
      if (id.equals(vector.getField().getMetadata().get(IcebergArrowSchemas.FIELD_ID_KEY))) {
        return vector;
      }
    }
    return root.getVector(column.name());
  }

  /** Hands {@code roots} (of one schema) to DuckDB as an Arrow stream and runs the statement. */
  private void insert(
      Connection duckdb, BufferAllocator owner, List<VectorSchemaRoot> roots, String statement)
      throws SQLException {
    insert(duckdb, owner, roots, name -> statement + name);
  }

  /** As above, with the statement made from the stream's name. */
  private void insert(
      Connection duckdb,
      BufferAllocator owner,
      List<VectorSchemaRoot> roots,
      java.util.function.Function<String, String> statement)
      throws SQLException {
    String name = "lakestream_rows_" + names.incrementAndGet();
    try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(owner)) {
      Data.exportArrayStream(owner, new Batches(owner, roots), stream);
      duckdb.unwrap(DuckDBConnection.class).registerArrowStream(name, stream);
      try (Statement insert = duckdb.createStatement()) {
        insert.execute(statement.apply(name));
      }
    }
  }

  public static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  public static String literal(String value) {
    return "'" + value.replace("'", "''") + "'";
  }

  /** An Arrow reader of the rows of some roots of one schema (which it does not own). */
  private static final class Batches extends ArrowReader {
    private final List<VectorSchemaRoot> sources;
    private int next;

    Batches(BufferAllocator allocator, List<VectorSchemaRoot> sources) {
      super(allocator);
      this.sources = sources;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (next == sources.size()) {
        return false;
      }
      try (ArrowRecordBatch rows = new VectorUnloader(sources.get(next++)).getRecordBatch()) {
        new VectorLoader(getVectorSchemaRoot()).load(rows);
      }
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return sources.get(0).getSchema();
    }
  }
}
