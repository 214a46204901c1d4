package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.flight.IngestRows.Stored;
import io.lakestream.flight.IngestRows.Totals;
import io.lakestream.testing.EmbeddedLakestream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcException;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.core.AdbcStatusCode;
import org.apache.arrow.adbc.core.BulkIngestMode;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlConnectionProperties;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingest into log tables over Flight with real clients: ADBC's Java Flight SQL driver (a query, and
 * {@code bulkIngest} of an Arrow root), the Flight SQL client's bulk ingest ({@code
 * CommandStatementIngest}) and plain Flight {@code DoPut}; idempotent retries with a key; and bad
 * input answered with typed errors while nothing is written and the server keeps working. Rows are
 * checked by SQL queries and, row by row, through the Java client's {@code LogScanner}.
 */
class FlightIngestTest {
  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static BufferAllocator allocator;
  private static FlightClient flight;
  private static FlightSqlClient sql;
  private static Connection connection;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data);
    connection = lakestream.connection();
    RESTCatalog catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("ingest"), new HashMap<>());
    for (String name :
        List.of(
            "adbc_events",
            "put_events",
            "retry_events",
            "cmd_events",
            "bad_events",
            "jdbc_events",
            "big_events")) {
      catalog.createTable(
          TableIdentifier.of("ingest", name),
          IngestRows.icebergSchema(),
          PartitionSpec.unpartitioned(),
          new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "3")));
    }
    org.apache.iceberg.Schema placed =
        new org.apache.iceberg.Schema(
            Types.NestedField.required(1, "device", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "reading", Types.DoubleType.get()));
    catalog.createTable(
        TableIdentifier.of("ingest", "placed"),
        placed,
        PartitionSpec.builderFor(placed).identity("region").build(),
        new HashMap<>(
            Map.of(
                "lakestream.kind", "log",
                "lakestream.buckets", "3",
                "lakestream.bucket-key", "device")));
    catalog.createTable(
        TableIdentifier.of("ingest", "users"),
        new org.apache.iceberg.Schema(
            List.of(
                Types.NestedField.required(1, "user_id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())),
            Set.of(1)),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "primary-key")));
    catalog.createTable(
        TableIdentifier.of("ingest", "plain"),
        IngestRows.icebergSchema(),
        PartitionSpec.unpartitioned(),
        new HashMap<>());
    allocator = new RootAllocator();
    flight =
        FlightClient.builder(
                allocator, Location.forGrpcInsecure("127.0.0.1", lakestream.server().flightPort()))
            .build();
    sql = new FlightSqlClient(flight);
  }

  @AfterAll
  static void stop() throws Exception {
    sql.close();
    allocator.close();
    lakestream.close();
  }

  private static AdbcDatabase adbc(Map<String, Object> extra) throws AdbcException {
    Map<String, Object> parameters = new HashMap<>(extra);
    AdbcDriver.PARAM_URI.set(
        parameters, "grpc+tcp://127.0.0.1:" + lakestream.server().flightPort());
    return new FlightSqlDriver(allocator).open(parameters);
  }

  /** The one row of {@link IngestRows#totalsQuery}, through ADBC. */
  private static Object[] adbcTotals(AdbcConnection adbc, String table) throws Exception {
    try (AdbcStatement statement = adbc.createStatement()) {
      statement.setSqlQuery(IngestRows.totalsQuery(table));
      try (AdbcStatement.QueryResult result = statement.executeQuery()) {
        ArrowReader reader = result.getReader();
        List<Object[]> rows = new ArrayList<>();
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int row = 0; row < root.getRowCount(); row++) {
            Object[] values = new Object[root.getFieldVectors().size()];
            for (int column = 0; column < values.length; column++) {
              values[column] = root.getVector(column).getObject(row);
            }
            rows.add(values);
          }
        }
        assertThat(rows).hasSize(1);
        return rows.get(0);
      }
    }
  }

  /** The one row of {@link IngestRows#totalsQuery}, through the Flight SQL client. */
  private static Object[] flightTotals(String table) throws Exception {
    FlightInfo info = sql.execute(IngestRows.totalsQuery(table));
    List<Object[]> rows = new ArrayList<>();
    try (FlightStream stream = flight.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int row = 0; row < root.getRowCount(); row++) {
          Object[] values = new Object[root.getFieldVectors().size()];
          for (int column = 0; column < values.length; column++) {
            values[column] = root.getVector(column).getObject(row);
          }
          rows.add(values);
        }
      }
    }
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private static void assertTotals(Object[] actual, Totals expected) {
    assertThat(actual[0]).isEqualTo(expected.count());
    assertThat(actual[1]).isEqualTo(expected.sumId());
    assertThat(actual[2]).isEqualTo(expected.sumQty());
    assertThat((Double) actual[3]).isCloseTo(expected.sumPrice(), within(1e-6));
    assertThat(actual[4]).isEqualTo(expected.names());
  }

  /** Every row of an events table, by id, checked to appear once and to equal its generated row. */
  private static void assertEventsExactly(String path, List<Long> ids) {
    List<Stored> stored = IngestRows.scanAll(connection, path);
    Map<Long, Object[]> byId = new TreeMap<>();
    for (Stored row : stored) {
      assertThat(byId.put((Long) row.values()[0], row.values()))
          .as("id %s stored once", row.values()[0])
          .isNull();
    }
    assertThat(byId.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    for (long id : ids) {
      assertThat(byId.get(id)).as("row %s", id).containsExactly(IngestRows.row(id));
    }
  }

  private static List<Long> ids(long first, long count) {
    return LongStream.range(first, first + count).boxed().toList();
  }

  // ---- ADBC

  @Test
  void adbcBulkIngestsAnArrowRootAndQueriesIt() throws Exception {
    List<Long> expected = new ArrayList<>();
    try (AdbcDatabase database = adbc(Map.of());
        AdbcConnection adbc = database.connect()) {
      // A query first: the table is empty.
      assertTotals(adbcTotals(adbc, "ingest.adbc_events"), Totals.of(List.of()));
      long first = 0;
      for (int count : new int[] {2_500, 1, 700}) {
        try (VectorSchemaRoot root = IngestRows.batch(allocator, first, count);
            AdbcStatement ingest = adbc.bulkIngest("ingest.adbc_events", BulkIngestMode.APPEND)) {
          ingest.bind(root);
          AdbcStatement.UpdateResult result = ingest.executeUpdate();
          assertThat(result.getAffectedRows()).isEqualTo(count);
        }
        expected.addAll(ids(first, count));
        first += count;
      }
      // Acknowledged rows are visible to the next query.
      assertTotals(adbcTotals(adbc, "ingest.adbc_events"), Totals.of(expected));
    }
    assertThat(IngestRows.stored(connection, "ingest.adbc_events")).isEqualTo(expected.size());
    assertEventsExactly("ingest.adbc_events", expected);
  }

  @Test
  void adbcBulkIngestErrorsAreTyped() throws Exception {
    long before = IngestRows.stored(connection, "ingest.bad_events");
    try (AdbcDatabase database = adbc(Map.of());
        AdbcConnection adbc = database.connect();
        VectorSchemaRoot root = IngestRows.batch(allocator, 0, 10)) {
      try (AdbcStatement ingest = adbc.bulkIngest("ingest.missing", BulkIngestMode.APPEND)) {
        ingest.bind(root);
        assertThatThrownBy(ingest::executeUpdate)
            .isInstanceOf(AdbcException.class)
            .satisfies(
                e ->
                    assertThat(((AdbcException) e).getStatus()).isEqualTo(AdbcStatusCode.NOT_FOUND))
            .hasStackTraceContaining("Table default.ingest.missing does not exist");
      }
      // A column of the wrong type: refused before anything is written.
      List<Field> fields = new ArrayList<>(IngestRows.arrowSchema().getFields());
      fields.set(2, Field.nullable("price", ArrowType.Utf8.INSTANCE));
      try (VectorSchemaRoot wrong = VectorSchemaRoot.create(new Schema(fields), allocator);
          AdbcStatement ingest = adbc.bulkIngest("ingest.bad_events", BulkIngestMode.APPEND)) {
        wrong.allocateNew();
        ((BigIntVector) wrong.getVector("id")).setSafe(0, 1L);
        ((VarCharVector) wrong.getVector("price"))
            .setSafe(0, "cheap".getBytes(StandardCharsets.UTF_8));
        wrong.setRowCount(1);
        ingest.bind(wrong);
        assertThatThrownBy(ingest::executeUpdate)
            .isInstanceOf(AdbcException.class)
            .satisfies(
                e ->
                    assertThat(((AdbcException) e).getStatus())
                        .isEqualTo(AdbcStatusCode.INVALID_ARGUMENT))
            .hasStackTraceContaining(
                "Column price of default.ingest.bad_events has type"
                    + " FloatingPoint(DOUBLE) but the batches send Utf8");
      }
      // The server keeps working on the same connection.
      assertTotals(adbcTotals(adbc, "ingest.bad_events"), Totals.of(ids(0, before)));
    }
    assertThat(IngestRows.stored(connection, "ingest.bad_events")).isEqualTo(before);
  }

  @Test
  void jdbcPreparedInsertsWithBatchesIngest() throws Exception {
    String url =
        "jdbc:arrow-flight-sql://127.0.0.1:"
            + lakestream.server().flightPort()
            + "?useEncryption=false";
    try (java.sql.Connection jdbc = java.sql.DriverManager.getConnection(url);
        java.sql.PreparedStatement insert =
            jdbc.prepareStatement("INSERT INTO ingest.jdbc_events (price, id) VALUES (?, ?)")) {
      for (long id = 0; id < 40; id++) {
        insert.setDouble(1, id * 0.25);
        insert.setLong(2, id);
        insert.addBatch();
      }
      int[] counts = insert.executeBatch();
      assertThat(java.util.Arrays.stream(counts).sum()).isEqualTo(40);
    }
    List<Stored> stored = IngestRows.scanAll(connection, "ingest.jdbc_events");
    Map<Long, Object[]> byId = new TreeMap<>();
    stored.forEach(row -> assertThat(byId.put((Long) row.values()[0], row.values())).isNull());
    assertThat(byId.keySet()).containsExactlyElementsOf(ids(0, 40));
    byId.forEach(
        (id, row) -> assertThat(row).containsExactly(id, null, id * 0.25, null, null, null));
  }

  @Test
  void sqlInfoAdvertisesBulkIngestWithoutTransactions() throws Exception {
    FlightInfo info =
        sql.getSqlInfo(
            FlightSql.SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY,
            FlightSql.SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION,
            FlightSql.SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED);
    Map<Integer, Object> values = new TreeMap<>();
    try (FlightStream stream = flight.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int row = 0; row < root.getRowCount(); row++) {
          values.put(
              ((Number) root.getVector("info_name").getObject(row)).intValue(),
              root.getVector("value").getObject(row));
        }
      }
    }
    assertThat(values)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                FlightSql.SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY_VALUE,
                false,
                FlightSql.SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION_VALUE,
                true,
                FlightSql.SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED_VALUE,
                false));
  }

  // ---- plain Flight DoPut

  private static CallOption key(String key) {
    return IngestRows.idempotencyKey(key);
  }

  /** DoPut of batches to a path; returns the app_metadata of the server's answer. */
  private static String put(
      FlightDescriptor descriptor,
      Schema schema,
      List<Consumer<VectorSchemaRoot>> batches,
      CallOption... options)
      throws Exception {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      SyncPutListener listener = new SyncPutListener();
      FlightClient.ClientStreamListener stream =
          flight.startPut(descriptor, root, listener, options);
      for (Consumer<VectorSchemaRoot> batch : batches) {
        batch.accept(root);
        stream.putNext();
      }
      return IngestRows.finishPut(stream, listener);
    }
  }

  private static Consumer<VectorSchemaRoot> events(long first, int count) {
    return root -> IngestRows.fill(root, first, count);
  }

  @Test
  void plainDoPutAppendsToALogTable() throws Exception {
    String answer =
        put(
            FlightDescriptor.path("ingest", "put_events"),
            IngestRows.arrowSchema(),
            List.of(events(0, 1_000), events(1_000, 3_000), events(4_000, 17)));
    assertThat(answer)
        .isEqualTo("{\"rows\":4017,\"appendedRows\":4017,\"duplicateRows\":0,\"batches\":3}");
    // The warehouse may be named too.
    put(
        FlightDescriptor.path("default", "ingest", "put_events"),
        IngestRows.arrowSchema(),
        List.of(events(4_017, 83)));
    assertTotals(flightTotals("ingest.put_events"), Totals.of(ids(0, 4_100)));
    assertEventsExactly("ingest.put_events", ids(0, 4_100));
  }

  @Test
  void rowsAreReorderedByNameAndPlacedInTheirPartitionsAndBuckets() throws Exception {
    // Columns in another order than the table's, and nullable where the table requires values.
    Schema schema =
        new Schema(
            List.of(
                Field.nullable(
                    "reading", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("region", ArrowType.Utf8.INSTANCE),
                Field.nullable("device", new ArrowType.Int(64, true))));
    String[] regions = {"eu", "us", "ap-south"};
    Map<Long, Object[]> expected = new TreeMap<>();
    List<Consumer<VectorSchemaRoot>> batches = new ArrayList<>();
    for (int b = 0; b < 3; b++) {
      int batch = b;
      batches.add(
          root -> {
            root.allocateNew();
            for (int i = 0; i < 500; i++) {
              long device = batch * 500L + i;
              String region = regions[(int) ((device * 7) % regions.length)];
              double reading = device / 8.0;
              ((Float8Vector) root.getVector("reading")).setSafe(i, reading);
              ((VarCharVector) root.getVector("region"))
                  .setSafe(i, region.getBytes(StandardCharsets.UTF_8));
              ((BigIntVector) root.getVector("device")).setSafe(i, device);
            }
            root.setRowCount(500);
          });
      for (int i = 0; i < 500; i++) {
        long device = batch * 500L + i;
        expected.put(
            device,
            new Object[] {device, regions[(int) ((device * 7) % regions.length)], device / 8.0});
      }
    }
    put(FlightDescriptor.path("ingest", "placed"), schema, batches);

    Table table = connection.table(TablePath.of("ingest.placed"));
    int[] keyColumns = {0};
    List<Stored> stored = IngestRows.scanAll(connection, "ingest.placed");
    assertThat(stored).hasSize(expected.size());
    Map<Long, Object[]> seen = new TreeMap<>();
    for (Stored row : stored) {
      long device = (Long) row.values()[0];
      assertThat(seen.put(device, row.values())).isNull();
      assertThat(row.values()).containsExactly(expected.get(device));
      // Where the Java client's AppendWriter would have put the row.
      assertThat(row.partition()).isEqualTo("region=" + row.values()[1]);
      assertThat(row.bucket())
          .isEqualTo(AppendWriter.bucketOf(row.values(), keyColumns, table.buckets()));
    }
    assertThat(seen.keySet()).isEqualTo(expected.keySet());
  }

  // ---- Flight SQL bulk ingest (CommandStatementIngest)

  private static FlightSqlClient.ExecuteIngestOptions ingestOptions(
      String table, TableExistsOption ifExists, TableNotExistOption ifNotExist, String key) {
    return new FlightSqlClient.ExecuteIngestOptions(
        table,
        TableDefinitionOptions.newBuilder().setIfExists(ifExists).setIfNotExist(ifNotExist).build(),
        null,
        "ingest",
        key == null ? Map.of() : Map.of("lakestream.idempotency-key", key));
  }

  @Test
  void flightSqlBulkIngestAppendsAndHonoursTableOptions() throws Exception {
    try (VectorSchemaRoot root = IngestRows.batch(allocator, 0, 1_200)) {
      long rows =
          sql.executeIngest(
              root,
              ingestOptions(
                  "cmd_events",
                  TableExistsOption.TABLE_EXISTS_OPTION_APPEND,
                  TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
                  null));
      assertThat(rows).isEqualTo(1_200);
      // The same rows again with a key: appended once more (the first send had no key) ...
      for (int attempt = 0; attempt < 3; attempt++) {
        assertThat(
                sql.executeIngest(
                    root,
                    ingestOptions(
                        "cmd_events",
                        TableExistsOption.TABLE_EXISTS_OPTION_APPEND,
                        TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
                        "cmd-1")))
            .isEqualTo(1_200);
      }
      // ... and only once for the three sends under the key.
      assertThat(IngestRows.stored(connection, "ingest.cmd_events")).isEqualTo(2_400);

      assertFlightError(
          () ->
              sql.executeIngest(
                  root,
                  ingestOptions(
                      "cmd_events",
                      TableExistsOption.TABLE_EXISTS_OPTION_REPLACE,
                      TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
                      null)),
          FlightStatusCode.UNIMPLEMENTED,
          "Replacing table default.ingest.cmd_events is not supported");
      assertFlightError(
          () ->
              sql.executeIngest(
                  root,
                  ingestOptions(
                      "cmd_events",
                      TableExistsOption.TABLE_EXISTS_OPTION_FAIL,
                      TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
                      null)),
          FlightStatusCode.ALREADY_EXISTS,
          "Table default.ingest.cmd_events exists");
      assertFlightError(
          () ->
              sql.executeIngest(
                  root,
                  ingestOptions(
                      "not_there",
                      TableExistsOption.TABLE_EXISTS_OPTION_APPEND,
                      TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL,
                      null)),
          FlightStatusCode.NOT_FOUND,
          "Table default.ingest.not_there does not exist");
    }
    assertThat(IngestRows.stored(connection, "ingest.cmd_events")).isEqualTo(2_400);
    List<Stored> stored = IngestRows.scanAll(connection, "ingest.cmd_events");
    Map<Long, Integer> copies = new TreeMap<>();
    for (Stored row : stored) {
      long id = (Long) row.values()[0];
      assertThat(row.values()).containsExactly(IngestRows.row(id));
      copies.merge(id, 1, Integer::sum);
    }
    assertThat(copies.keySet()).containsExactlyElementsOf(ids(0, 1_200));
    assertThat(copies.values()).containsOnly(2);
  }

  @Test
  void flightSqlBulkIngestCreatesAMissingLogTableWhenAsked() throws Exception {
    Map<String, String> options =
        Map.of("lakestream.buckets", "2", "lakestream.bucket-key", "name");
    TableDefinitionOptions create =
        TableDefinitionOptions.newBuilder()
            .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL)
            .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
            .build();
    TableDefinitionOptions createOrAppend =
        create.toBuilder().setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND).build();
    try (VectorSchemaRoot first = IngestRows.batch(allocator, 0, 500);
        VectorSchemaRoot second = IngestRows.batch(allocator, 500, 500)) {
      assertThat(
              sql.executeIngest(
                  first,
                  new FlightSqlClient.ExecuteIngestOptions(
                      "created_events", create, null, "ingest", options)))
          .isEqualTo(500);
      assertFlightError(
          () ->
              sql.executeIngest(
                  second,
                  new FlightSqlClient.ExecuteIngestOptions(
                      "created_events", create, null, "ingest", options)),
          FlightStatusCode.ALREADY_EXISTS,
          "Table default.ingest.created_events exists");
      assertThat(
              sql.executeIngest(
                  second,
                  new FlightSqlClient.ExecuteIngestOptions(
                      "created_events", createOrAppend, null, "ingest", Map.of())))
          .isEqualTo(500);
    }
    org.apache.iceberg.Table created =
        lakestream.catalog().loadTable(TableIdentifier.of("ingest", "created_events"));
    // The sent columns are all nullable: every column is optional, with the sent types.
    assertThat(created.schema().asStruct())
        .isEqualTo(
            new org.apache.iceberg.Schema(
                    Types.NestedField.optional(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
                    Types.NestedField.optional(3, "price", Types.DoubleType.get()),
                    Types.NestedField.optional(4, "name", Types.StringType.get()),
                    Types.NestedField.optional(5, "day", Types.DateType.get()),
                    Types.NestedField.optional(6, "at", Types.TimestampType.withZone()))
                .asStruct());
    Table stream = connection.table(TablePath.of("ingest.created_events"));
    assertThat(stream.kind()).isEqualTo("log");
    assertThat(stream.buckets()).isEqualTo(2);
    assertThat(stream.bucketKey()).containsExactly("name");
    assertEventsExactly("ingest.created_events", ids(0, 1_000));
    assertTotals(flightTotals("ingest.created_events"), Totals.of(ids(0, 1_000)));

    // A column type no Iceberg type maps back to, or a bad table property: no table is created.
    try (VectorSchemaRoot small =
        VectorSchemaRoot.create(
            new Schema(List.of(Field.nullable("small", new ArrowType.Int(16, true)))), allocator)) {
      assertFlightError(
          () ->
              sql.executeIngest(
                  small,
                  new FlightSqlClient.ExecuteIngestOptions(
                      "never_events", create, null, "ingest", Map.of())),
          FlightStatusCode.INVALID_ARGUMENT,
          "Cannot create table default.ingest.never_events: column small has type Int(16, true)");
    }
    try (VectorSchemaRoot root = IngestRows.batch(allocator, 0, 5)) {
      assertFlightError(
          () ->
              sql.executeIngest(
                  root,
                  new FlightSqlClient.ExecuteIngestOptions(
                      "never_events", create, null, "ingest", Map.of("lakestream.buckets", "0"))),
          FlightStatusCode.INVALID_ARGUMENT,
          "lakestream.buckets");
    }
    assertThat(lakestream.catalog().tableExists(TableIdentifier.of("ingest", "never_events")))
        .isFalse();
  }

  // ---- idempotent retries

  @Test
  void aRetryWithTheSameKeyAppendsNothingTwice() throws Exception {
    FlightDescriptor path = FlightDescriptor.path("ingest", "retry_events");
    // The first attempt fails at its fourth batch (a null id): the three before it are stored.
    assertFlightError(
        () ->
            put(
                path,
                IngestRows.arrowSchema(),
                List.of(
                    events(0, 800),
                    events(800, 800),
                    events(1_600, 800),
                    root -> {
                      IngestRows.fill(root, 2_400, 800);
                      ((BigIntVector) root.getVector("id")).setNull(5);
                    }),
                key("load-42")),
        FlightStatusCode.INVALID_ARGUMENT,
        "Column id of default.ingest.retry_events is required (not null) but batch 3 has 1 nulls");
    assertThat(IngestRows.stored(connection, "ingest.retry_events")).isEqualTo(2_400);

    // The retry sends all five batches: the three stored ones are recognised, two are appended.
    List<Consumer<VectorSchemaRoot>> all =
        List.of(
            events(0, 800),
            events(800, 800),
            events(1_600, 800),
            events(2_400, 800),
            events(3_200, 800));
    assertThat(put(path, IngestRows.arrowSchema(), all, key("load-42")))
        .isEqualTo("{\"rows\":4000,\"appendedRows\":1600,\"duplicateRows\":2400,\"batches\":5}");
    // A third send of the same call appends nothing.
    assertThat(put(path, IngestRows.arrowSchema(), all, key("load-42")))
        .isEqualTo("{\"rows\":4000,\"appendedRows\":0,\"duplicateRows\":4000,\"batches\":5}");
    assertEventsExactly("ingest.retry_events", ids(0, 4_000));

    // Other batches under the same key are new rows, not a retry.
    assertThat(put(path, IngestRows.arrowSchema(), List.of(events(4_000, 100)), key("load-42")))
        .isEqualTo("{\"rows\":100,\"appendedRows\":100,\"duplicateRows\":0,\"batches\":1}");
    // Without a key, a resent call is appended again.
    put(path, IngestRows.arrowSchema(), List.of(events(4_100, 50)));
    put(path, IngestRows.arrowSchema(), List.of(events(4_100, 50)));
    assertThat(IngestRows.stored(connection, "ingest.retry_events")).isEqualTo(4_200);
    assertTotals(
        flightTotals("ingest.retry_events"),
        Totals.of(
            LongStream.concat(LongStream.range(0, 4_150), LongStream.range(4_100, 4_150))
                .boxed()
                .toList()));
  }

  @Test
  void aLargeBatchIsStoredInPiecesAndItsRetryRecognisesEveryPiece() throws Exception {
    FlightDescriptor path = FlightDescriptor.path("ingest", "big_events");
    int rows = 400_000;
    long started = System.nanoTime();
    String first = put(path, IngestRows.arrowSchema(), List.of(events(0, rows)), key("big"));
    long millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    System.out.println(
        "FlightIngestTest: one batch of " + rows + " rows in " + millis + " ms: " + first);
    java.util.regex.Matcher batches =
        java.util.regex.Pattern.compile("\"batches\":(\\d+)").matcher(first);
    assertThat(batches.find()).isTrue();
    int pieces = Integer.parseInt(batches.group(1));
    // About 44 bytes a row: more than one stored batch of at most 8 MiB.
    assertThat(pieces).isGreaterThan(1);
    assertThat(first)
        .isEqualTo(
            "{\"rows\":400000,\"appendedRows\":400000,\"duplicateRows\":0,\"batches\":"
                + pieces
                + "}");
    assertThat(put(path, IngestRows.arrowSchema(), List.of(events(0, rows)), key("big")))
        .isEqualTo(
            "{\"rows\":400000,\"appendedRows\":0,\"duplicateRows\":400000,\"batches\":"
                + pieces
                + "}");
    assertThat(IngestRows.stored(connection, "ingest.big_events")).isEqualTo(rows);
    assertTotals(flightTotals("ingest.big_events"), Totals.of(ids(0, rows)));
    assertEventsExactly("ingest.big_events", ids(0, rows));
  }

  @Test
  void adbcRetriesWithAKeyHeaderAreIdempotent() throws Exception {
    Map<String, Object> header =
        Map.of(
            FlightSqlConnectionProperties.RPC_CALL_HEADER_PREFIX + "lakestream-idempotency-key",
            "adbc-run-7");
    long before = IngestRows.stored(connection, "ingest.adbc_events");
    try (AdbcDatabase database = adbc(header);
        AdbcConnection adbc = database.connect();
        VectorSchemaRoot root = IngestRows.batch(allocator, 100_000, 900)) {
      for (int attempt = 0; attempt < 3; attempt++) {
        try (AdbcStatement ingest = adbc.bulkIngest("ingest.adbc_events", BulkIngestMode.APPEND)) {
          ingest.bind(root);
          assertThat(ingest.executeUpdate().getAffectedRows()).isEqualTo(900);
        }
      }
    }
    assertThat(IngestRows.stored(connection, "ingest.adbc_events")).isEqualTo(before + 900);
  }

  // ---- bad input

  private interface Call {
    void run() throws Exception;
  }

  private static void assertFlightError(Call call, FlightStatusCode code, String message) {
    assertThatThrownBy(call::run)
        .isInstanceOf(FlightRuntimeException.class)
        .satisfies(e -> assertThat(((FlightRuntimeException) e).status().code()).isEqualTo(code))
        .hasMessageContaining(message);
  }

  @Test
  void badInputIsRefusedWithTypedErrorsAndWritesNothing() throws Exception {
    FlightDescriptor bad = FlightDescriptor.path("ingest", "bad_events");
    Schema good = IngestRows.arrowSchema();
    List<Field> withUnknown = new ArrayList<>(good.getFields());
    withUnknown.add(Field.nullable("bogus", new ArrowType.Int(64, true)));
    assertFlightError(
        () -> put(bad, new Schema(withUnknown), List.of(root -> {})),
        FlightStatusCode.INVALID_ARGUMENT,
        "Column bogus is not a column of default.ingest.bad_events");

    List<Field> wrongType = new ArrayList<>(good.getFields());
    wrongType.set(1, Field.nullable("qty", ArrowType.Utf8.INSTANCE));
    assertFlightError(
        () -> put(bad, new Schema(wrongType), List.of(root -> {})),
        FlightStatusCode.INVALID_ARGUMENT,
        "Column qty of default.ingest.bad_events has type Int(32, true) but the batches send Utf8");

    List<Field> missingId = new ArrayList<>(good.getFields().subList(1, good.getFields().size()));
    assertFlightError(
        () -> put(bad, new Schema(missingId), List.of(root -> {})),
        FlightStatusCode.INVALID_ARGUMENT,
        "Column id of default.ingest.bad_events is required (not null) but the batches do not"
            + " send it");

    assertFlightError(
        () -> put(FlightDescriptor.path("ingest", "nope"), good, List.of(events(0, 5))),
        FlightStatusCode.NOT_FOUND,
        "Table default.ingest.nope does not exist");
    assertFlightError(
        () -> put(FlightDescriptor.path("nowhere", "ingest", "bad_events"), good, List.of()),
        FlightStatusCode.INVALID_ARGUMENT,
        "there is no warehouse (catalog) nowhere");
    assertFlightError(
        () -> put(FlightDescriptor.path("bad_events"), good, List.of()),
        FlightStatusCode.INVALID_ARGUMENT,
        "A DoPut path names [namespace, table] or [warehouse, namespace, table]");
    assertFlightError(
        () ->
            put(
                FlightDescriptor.path("ingest", "users"),
                new Schema(
                    List.of(
                        Field.nullable("user_id", new ArrowType.Int(64, true)),
                        Field.nullable("name", ArrowType.Utf8.INSTANCE))),
                List.of(root -> {})),
        FlightStatusCode.UNIMPLEMENTED,
        "default.ingest.users is a primary-key table");
    assertFlightError(
        () -> put(FlightDescriptor.path("ingest", "plain"), good, List.of(events(0, 5))),
        FlightStatusCode.UNIMPLEMENTED,
        "default.ingest.plain is a plain Iceberg table");
    assertFlightError(
        () -> put(bad, good, List.of(events(0, 5)), key(" ")),
        FlightStatusCode.INVALID_ARGUMENT,
        "idempotency key");

    assertThat(IngestRows.stored(connection, "ingest.bad_events")).isZero();
    assertThat(IngestRows.stored(connection, "ingest.users")).isZero();
    // The server keeps working: the same table takes good rows and queries answer.
    put(bad, good, List.of(events(0, 10)));
    assertTotals(flightTotals("ingest.bad_events"), Totals.of(ids(0, 10)));
    assertEventsExactly("ingest.bad_events", ids(0, 10));
  }

  @Test
  void preparedInsertsOfOtherShapesAreRefusedClearly() {
    assertFlightError(
        () -> sql.prepare("INSERT INTO ingest.bad_events VALUES (?, 1)").close(),
        FlightStatusCode.INVALID_ARGUMENT,
        "Unsupported INSERT");
    assertFlightError(
        () -> sql.prepare("INSERT INTO ingest.bad_events VALUES (?, ?)").close(),
        FlightStatusCode.INVALID_ARGUMENT,
        "Table default.ingest.bad_events has 6 columns but the INSERT has 2 values");
    assertFlightError(
        () -> sql.prepare("INSERT INTO ingest.bad_events (id, nope) VALUES (?, ?)").close(),
        FlightStatusCode.INVALID_ARGUMENT,
        "Column nope is not a column of default.ingest.bad_events");
  }
}
