package io.lakestream.flight.scan;

import static io.lakestream.flight.scan.LakeViews.TAIL_SCHEMA;
import static io.lakestream.flight.scan.LakeViews.literal;
import static io.lakestream.flight.scan.LakeViews.quote;
import static io.lakestream.flight.scan.ViewDefinitions.CHANGE_COLUMN;
import static io.lakestream.flight.scan.ViewDefinitions.OFFSET_COLUMN;
import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.flight.sql.TableReferences;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The tail tables of queries' views: the log rows of a union read plan, fetched through the {@link
 * TailCache}, in a DuckDB table of the query's database with only the columns the query may use
 * (large cached pieces instead as Parquet files the view scans), and for a primary-key table with
 * each row's change type and offset. Writes the Parquet files in a database of its own, since query
 * databases may write no file. Thread safe.
 */
final class TailTables {
  private static final int FLUSH_ROWS = 256 * 1024;

  private final BufferAllocator allocator;
  private final TailCache tails;

  /** DuckDB's column types of a table schema: never changes for a schema id. */
  private record ColumnTypesKey(String tableUuid, int schemaId) {}

  private final Map<ColumnTypesKey, List<String>> columnTypes =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ColumnTypesKey, List<String>> eldest) {
          return size() > 1024;
        }
      };

  // Writes cached tail pieces as Parquet files: query databases may write no file (and sandboxed
  // ones read only their own directory), so a database of the engine's own does it.
  private final Object writerLock = new Object();

  private Connection writer;

  TailTables(BufferAllocator allocator, TailCache tails) {
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.tails = requireNonNull(tails, "tails is null");
  }

  /**
   * DuckDB's types of the columns of the table's current schema, which its tail table has, when an
   * earlier query found them ({@link #declare}); else null. Looking them up runs no statement.
   */
  List<String> knownTypes(Table table) {
    synchronized (columnTypes) {
      return columnTypes.get(
          new ColumnTypesKey(table.uuid().toString(), table.schema().schemaId()));
    }
  }

  /**
   * Finds DuckDB's types of the table's columns the first time a table schema is seen: DuckDB
   * derives them from the Arrow schema by creating the empty table {@code tail} (with, when {@code
   * keyed}, the change type and offset columns), which then exists. Later queries find them by
   * {@link #knownTypes} and create their tail table by {@link #createStatement}, within a statement
   * of other work: every DuckDB statement costs about as much as a small query's own work.
   */
  List<String> declare(Connection duckdb, String tail, Table table, boolean keyed)
      throws SQLException {
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
    if (keyed) {
      try (Statement statement = duckdb.createStatement()) {
        statement.execute(
            "ALTER TABLE "
                + tail
                + " ADD COLUMN "
                + CHANGE_COLUMN
                + " TINYINT; ALTER TABLE "
                + tail
                + " ADD COLUMN "
                + OFFSET_COLUMN
                + " BIGINT");
      }
    }
    synchronized (columnTypes) {
      columnTypes.put(
          new ColumnTypesKey(table.uuid().toString(), table.schema().schemaId()),
          List.copyOf(types));
    }
    return types;
  }

  /**
   * The statement that creates the empty table {@code tail} with the table's columns in DuckDB's
   * {@code types} (as {@link #declare} found them), followed, when {@code keyed}, by the change
   * type and offset.
   */
  static String createStatement(String tail, Table table, List<String> types, boolean keyed) {
    StringBuilder create = new StringBuilder("CREATE TABLE ").append(tail).append(" (");
    List<Types.NestedField> columns = table.schema().columns();
    for (int i = 0; i < columns.size(); i++) {
      create
          .append(i == 0 ? "" : ", ")
          .append(quote(columns.get(i).name()))
          .append(' ')
          .append(types.get(i));
    }
    if (keyed) {
      create.append(", ").append(CHANGE_COLUMN).append(" TINYINT, ");
      create.append(OFFSET_COLUMN).append(" BIGINT");
    }
    return create.append(')').toString();
  }

  /**
   * A plan's log rows as the tail cache gave them: whole cached pieces as files ({@code files},
   * which the caller releases) and the other rows as batches to copy into a tail table ({@link
   * #load}). Closing it closes the batches not copied.
   */
  static final class Fetched implements AutoCloseable {
    private final List<TailCache.TailFile> files = new ArrayList<>();
    private final java.util.ArrayDeque<TailCache.Slice> rows = new java.util.ArrayDeque<>();

    List<TailCache.TailFile> files() {
      return files;
    }

    /** Whether any rows are to be copied into a tail table. */
    boolean hasRows() {
      return !rows.isEmpty();
    }

    @Override
    public void close() {
      rows.forEach(slice -> slice.root().close());
      rows.clear();
    }
  }

  /**
   * Reads the plan's log ranges from the tail cache (for a log table, large unchanged pieces as
   * Parquet files); a primary-key table's rows all come as batches, to be folded by key.
   */
  Fetched fetch(Table table, UnionScanPlan plan, io.lakestream.client.Table stream, boolean keyed) {
    List<TailCache.Slice> slices =
        tails.read(
            plan.table(),
            stream,
            plan.logRanges(),
            keyed ? null : (rows, target) -> writeFile(rows, target, table.schema()));
    Fetched fetched = new Fetched();
    for (TailCache.Slice slice : slices) {
      if (slice.file() != null) {
        fetched.files.add(slice.file());
      } else {
        fetched.rows.add(slice);
      }
    }
    return fetched;
  }

  /**
   * Copies the fetched batches into the existing table {@code tail}, only the columns the query may
   * use; a primary-key table's rows with their key, change type and offset.
   */
  void load(
      Connection duckdb,
      TailTable tail,
      Table table,
      Fetched fetched,
      TableReferences.Parsed parsed,
      boolean keyed)
      throws SQLException {
    Set<Integer> key = keyed ? table.schema().identifierFieldIds() : Set.of();
    List<Types.NestedField> copied = new ArrayList<>();
    for (Types.NestedField column : table.schema().columns()) {
      if (parsed.reads(column.name()) || key.contains(column.fieldId())) {
        copied.add(column);
      }
    }
    Tail pending = new Tail(duckdb, tail, table, copied, keyed);
    try {
      for (TailCache.Slice slice; (slice = fetched.rows.poll()) != null; ) {
        VectorSchemaRoot rows = keyed ? withOffsets(slice.root(), slice.offset()) : slice.root();
        pending.add(slice.schemaId(), rows);
      }
      pending.flush();
    } finally {
      pending.discard();
    }
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
   * A query's tail table: in database {@code database}, schema {@value LakeViews#TAIL_SCHEMA},
   * named {@code name}, with DuckDB's {@code types} of the lake table's columns (followed, for a
   * primary-key table, by its change type and offset columns).
   */
  record TailTable(String database, String name, List<String> types) {
    /** Fully qualified: a view in an attached catalog resolves names in that catalog. */
    static String qualified(String database, String name) {
      return quote(database) + "." + quote(TAIL_SCHEMA) + "." + quote(name);
    }
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
     * @param lakeTable the lake table (its columns are the tail table's)
     * @param copied the columns to copy values of; the others stay null
     * @param keyed whether the rows are a primary-key table's changes, with offsets ({@link
     *     #withOffsets}), whose change types and offsets are copied too
     */
    Tail(
        Connection duckdb,
        TailTable tail,
        Table lakeTable,
        List<Types.NestedField> copied,
        boolean keyed) {
      this.duckdb = duckdb;
      this.tail = tail;
      this.table = TailTable.qualified(tail.database(), tail.name());
      this.columns = lakeTable.schema().columns();
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
        ValueWriter change =
            ValueWriter.of(slice.getVector(ArrowValues.CHANGE_TYPE_COLUMN), "TINYINT");
        ValueWriter offset = ValueWriter.of(slice.getVector(OFFSET_COLUMN), "BIGINT");
        if (change == null || offset == null) {
          return null;
        }
        writers.add(change);
        writers.add(offset);
      }
      return writers;
    }

    private ValueWriter columnWriter(FieldVector vector, int column) {
      return ValueWriter.of(vector, tail.types().get(column));
    }
  }

  /** Rows a tail table takes through DuckDB's appender at most; more go as an Arrow stream. */
  private static final int APPENDED_ROWS = 2048;

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
    String name = LakeViews.ARROW_ROWS_VIEW; // registered again (replaced) for each hand-over
    try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(owner)) {
      Data.exportArrayStream(owner, new Batches(owner, roots), stream);
      duckdb.unwrap(DuckDBConnection.class).registerArrowStream(name, stream);
      try (Statement insert = duckdb.createStatement()) {
        insert.execute(statement.apply(name));
      }
    }
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

  /** Closes the database that writes tail files. */
  void close() {
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
}
