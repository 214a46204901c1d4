package io.lakestream.flight.query;

import static io.lakestream.flight.scan.LakeViews.quote;
import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.client.scan.UnionScanPlan;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.query.QueryDatabases.Lent;
import io.lakestream.flight.scan.LakeViews;
import io.lakestream.flight.scan.LakestreamTables;
import io.lakestream.flight.scan.RecordVectors;
import io.lakestream.flight.scan.SnapshotFiles;
import io.lakestream.flight.scan.TailCache;
import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.sql.TableReference;
import io.lakestream.flight.sql.TableReferences;
import io.lakestream.scan.UnionScanPlanner;
import io.lakestream.scan.UnionScanReader;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.duckdb.DuckDBConnection;

/**
 * Puts the tables a query names into the query's database: checks that the principal may read each,
 * loads its metadata and, for a query with rows, plans its union read; then creates, under the name
 * the query uses, a view over the lake snapshot and the log tail ({@link LakeViews}) or a table
 * loaded by the reference reader; and finally, for a database not locked from the start, lets it
 * read only the files of those views. Thread safe.
 */
final class QueryTables {
  private static final int LOAD_BATCH_ROWS = 64 * 1024;

  private final LakestreamTables tables;
  private final UnionScanPlanner planner;
  private final UnionScanReader reader;
  private final FlightSqlAccess access;
  private final BufferAllocator allocator;
  private final LakeViews views;

  QueryTables(
      LakestreamTables tables,
      UnionScanPlanner planner,
      UnionScanReader reader,
      FlightSqlAccess access,
      BufferAllocator allocator,
      LakeViews views) {
    this.tables = requireNonNull(tables, "tables is null");
    this.planner = requireNonNull(planner, "planner is null");
    this.reader = requireNonNull(reader, "reader is null");
    this.access = requireNonNull(access, "access is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.views = requireNonNull(views, "views is null");
  }

  /**
   * Lets the database read only {@code files} (Parquet files of the tables a query names), no other
   * file, no network.
   */
  private static void restrict(Connection duckdb, Set<String> files) throws SQLException {
    try (Statement statement = duckdb.createStatement()) {
      if (!files.isEmpty()) {
        StringBuilder paths = new StringBuilder("SET allowed_paths = [");
        boolean first = true;
        for (String file : files) {
          paths.append(first ? "" : ", ").append("'").append(file.replace("'", "''")).append("'");
          first = false;
        }
        statement.execute(paths.append("]").toString());
      }
      statement.execute("SET enable_external_access = false");
    }
  }

  /** A table a query names, resolved and (for a query with rows) planned. */
  private record Resolved(
      TableReference reference,
      String warehouse,
      TablePath path,
      Table table,
      UnionScanPlanner.Planned planned,
      Optional<SnapshotFiles.LakeFiles> files) {}

  /**
   * Creates, under each name the query uses, a DuckDB view of the table (see {@link LakeViews}) or,
   * for tables that cannot be read that way and when {@code rows} is not set, a DuckDB table loaded
   * by the reference reader; a table named twice gets a view of the first. Then the database may
   * read only the files of those views. The database is told what the set-up creates before it is
   * created ({@link Lent#setUp}): given back, it is emptied of that without a search of its
   * catalog; a query that names no table gets nothing, and its database is told so too.
   *
   * @return what lets the log tail files the views read go, to close after the query
   */
  AutoCloseable load(Lent lent, TableReferences.Parsed parsed, String principal, boolean rows)
      throws SQLException {
    Connection duckdb = lent.duckdb();
    Map<TablePath, Resolved> resolved = new LinkedHashMap<>();
    List<Resolved> named = new ArrayList<>();
    Set<String> files = new LinkedHashSet<>();
    for (TableReference reference : parsed.tables()) {
      String warehouse = tables.warehouse(reference.catalog(), reference);
      TablePath path = tables.path(warehouse, List.of(reference.schema()), reference.table());
      access.checkRead(principal, warehouse, path.namespace());
      Resolved table = resolved.get(path);
      if (table == null) {
        table = resolve(reference, warehouse, path, rows);
        resolved.put(path, table);
        table.files().ifPresent(lake -> files.addAll(lake.paths()));
      }
      named.add(
          new Resolved(reference, warehouse, path, table.table(), table.planned(), table.files()));
    }
    if (named.isEmpty()) {
      lent.setUp().nothing(); // no table, so no view, schema, tail table or attached database
    }
    List<TailCache.TailFile> tailFiles = new ArrayList<>();
    try {
      createViews(duckdb, lent, parsed, named, rows, tailFiles);
      if (!lent.locked()) {
        tailFiles.forEach(file -> files.add(file.path().toString()));
        restrict(duckdb, files);
      }
    } catch (SQLException | RuntimeException e) {
      views.release(tailFiles);
      throw e;
    }
    return () -> views.release(tailFiles);
  }

  private void createViews(
      Connection duckdb,
      Lent lent,
      TableReferences.Parsed parsed,
      List<Resolved> named,
      boolean rows,
      List<TailCache.TailFile> tailFiles)
      throws SQLException {
    Map<TablePath, String> loaded = new HashMap<>();
    String tailDatabase = null;
    Set<String> attached = new HashSet<>();
    Set<String> schemas = new HashSet<>();
    for (Resolved table : named) {
      TableReference reference = table.reference();
      String schema =
          reference.catalog().isEmpty()
              ? quote(reference.schema())
              : quote(reference.catalog()) + "." + quote(reference.schema());
      String target = schema + "." + quote(reference.table());
      boolean view = table.files().isPresent() || loaded.containsKey(table.path());
      if (reference.catalog().isEmpty()) {
        lent.setUp().schema(reference.schema());
        lent.setUp().object(view, reference.schema(), reference.table());
      }
      if (!reference.catalog().isEmpty() && attached.add(reference.catalog())) {
        lent.setUp().attach(reference.catalog());
      }
      // The reference's schema and, for the first view, the database's one tail schema are created
      // in the same statement as the view: each DuckDB statement costs about a millisecond in the
      // server.
      List<String> setUp = new ArrayList<>(2);
      if (schemas.add(schema)) {
        setUp.add("CREATE SCHEMA IF NOT EXISTS " + schema);
      }
      String first = loaded.get(table.path());
      if (first != null || table.files().isEmpty()) {
        if (first != null) {
          setUp.add("CREATE VIEW " + target + " AS SELECT * FROM " + first);
        }
        if (!setUp.isEmpty()) {
          try (Statement statement = duckdb.createStatement()) {
            statement.execute(String.join("; ", setUp));
          }
        }
        if (first == null) {
          loadTable(duckdb, table, target, rows);
          loaded.put(table.path(), target);
        }
        continue;
      }
      if (tailDatabase == null) {
        lent.setUp().schema(LakeViews.TAIL_SCHEMA);
        tailDatabase = QueryDatabases.DATABASE;
        setUp.add(LakeViews.createTailSchema(tailDatabase));
      }
      UnionScanPlanner.Planned planned = table.planned();
      tailFiles.addAll(
          views.create(
              duckdb,
              lent.located(),
              setUp,
              tailDatabase,
              target,
              table.table(),
              table.files().get(),
              planned == null ? Optional.empty() : Optional.of(planned.plan()),
              planned == null ? null : planned.stream(),
              parsed));
      loaded.put(table.path(), target);
    }
  }

  /**
   * Loads a table's metadata and, for a query with rows, plans its union read (a streaming table)
   * and lists the files a view would read.
   */
  private Resolved resolve(
      TableReference reference, String warehouse, TablePath path, boolean withRows) {
    Table table;
    try {
      table = tables.load(warehouse, TableIdentifier.of(reference.schema(), reference.table()));
    } catch (NoSuchTableException e) {
      throw new InvalidQueryException(
          "Table " + reference + " does not exist (warehouse " + warehouse + ")", e);
    }
    if (!withRows) {
      return new Resolved(reference, warehouse, path, table, null, Optional.empty());
    }
    if (!LakestreamTables.isStream(table)) {
      Snapshot current = table.currentSnapshot();
      OptionalLong snapshot =
          current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId());
      return new Resolved(
          reference, warehouse, path, table, null, views.files(table, snapshot, false));
    }
    UnionScanPlanner.Planned planned;
    try {
      planned = planner.plan(path, table);
    } catch (NoSuchTableException e) {
      throw new InvalidQueryException("Table " + reference + " was dropped", e);
    }
    UnionScanPlan plan = planned.plan();
    return new Resolved(
        reference,
        warehouse,
        path,
        planned.lakeTable(),
        planned,
        views.files(planned.lakeTable(), plan.snapshotId(), plan.primaryKey()));
  }

  /** Loads a table into DuckDB with the reference reader (rows only when {@code withRows}). */
  private void loadTable(Connection duckdb, Resolved resolved, String target, boolean withRows)
      throws SQLException {
    Table table = resolved.table();
    UnionScanPlanner.Planned planned = resolved.planned();
    TableReference reference = resolved.reference();
    Schema schema = IcebergArrowSchemas.toArrowSchema(table.schema());
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      RecordVectors batch = new RecordVectors(root);
      insert(duckdb, batch, "CREATE TABLE " + target + " AS SELECT * FROM ");
      if (!withRows) {
        return;
      }
      String insert = "INSERT INTO " + target + " SELECT * FROM ";
      Consumer<Record> sink =
          record -> {
            batch.add(record);
            if (batch.rows() == LOAD_BATCH_ROWS) {
              insertUnchecked(duckdb, batch, insert);
            }
          };
      if (planned != null) {
        reader.read(planned, sink);
      } else if (table.currentSnapshot() != null) {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          records.forEach(sink);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException("Cannot read " + reference, e);
        }
      }
      if (batch.rows() > 0) {
        insert(duckdb, batch, insert);
      }
    }
  }

  private void insertUnchecked(Connection duckdb, RecordVectors batch, String statement) {
    try {
      insert(duckdb, batch, statement);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot load rows into DuckDB: " + e.getMessage(), e);
    }
  }

  /** Hands the batch's rows to DuckDB as an Arrow stream and runs {@code statement} over it. */
  private void insert(Connection duckdb, RecordVectors batch, String statement)
      throws SQLException {
    String name = LakeViews.ARROW_ROWS_VIEW; // registered again (replaced) for each batch
    VectorSchemaRoot rows = batch.finish();
    try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, new OneBatch(allocator, rows), stream);
      duckdb.unwrap(DuckDBConnection.class).registerArrowStream(name, stream);
      try (Statement insert = duckdb.createStatement()) {
        insert.execute(statement + name);
      }
    }
    batch.clear();
  }

  /** An Arrow reader of one batch, the rows of a root (which it does not own). */
  private static final class OneBatch extends ArrowReader {
    private final VectorSchemaRoot source;
    private boolean done;

    OneBatch(BufferAllocator allocator, VectorSchemaRoot source) {
      super(allocator);
      this.source = source;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (done) {
        return false;
      }
      done = true;
      try (ArrowRecordBatch rows = new VectorUnloader(source).getRecordBatch()) {
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
      return source.getSchema();
    }
  }
}
