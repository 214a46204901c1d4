package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.ServerProcess;
import io.lakestream.testing.SharedPerTestRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code lakestream} catalog in Flink SQL on a MiniCluster, against the packaged server: what
 * Flink shows is checked against what the server's REST catalog holds, read with Iceberg's own
 * client, and the other way round.
 */
class LakestreamCatalogIT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);

  @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(1);

  private static PackagedServer server;
  private static RESTCatalog iceberg;
  private static Connection client;

  private TableEnvironment flink;

  @BeforeAll
  static void startServer() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("flink-catalog-it-");
    server = PackagedServer.start(run, SERVER_START_TIMEOUT, "--tiering-enabled", "false");
    // Iceberg's own REST client; the tests read metadata only, so its files stay in memory.
    iceberg = new RESTCatalog();
    iceberg.initialize(
        "reference", Map.of("uri", server.baseUri(), "io-impl", InMemoryFileIO.class.getName()));
    client = Connection.open("127.0.0.1", server.rpcPort(), null);
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (client != null) {
      client.close();
    }
    if (iceberg != null) {
      iceberg.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void createCatalog() {
    flink = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    flink.executeSql(
        "CREATE CATALOG ls WITH ('type'='lakestream', 'uri'='"
            + server.baseUri()
            + "', 'rpc-address'='127.0.0.1:"
            + server.rpcPort()
            + "')");
  }

  @AfterEach
  void dropCatalog() {
    // Closes the catalog's REST client and stream RPC connection.
    flink.executeSql("DROP CATALOG IF EXISTS ls");
  }

  @Test
  void databasesAreNamespaces() {
    iceberg.createNamespace(Namespace.of("made_by_rest"));
    assertThat(column(sql("SHOW DATABASES IN ls"), 0)).contains("made_by_rest");

    sql("CREATE DATABASE ls.made_by_flink COMMENT 'from Flink'");
    assertThat(iceberg.namespaceExists(Namespace.of("made_by_flink"))).isTrue();
    assertThat(iceberg.loadNamespaceMetadata(Namespace.of("made_by_flink")))
        .containsEntry("comment", "from Flink");
    assertThat(column(sql("SHOW DATABASES IN ls"), 0)).contains("made_by_rest", "made_by_flink");
    sql("CREATE DATABASE IF NOT EXISTS ls.made_by_flink");

    sql("DROP DATABASE ls.made_by_flink");
    assertThat(iceberg.namespaceExists(Namespace.of("made_by_flink"))).isFalse();
    assertThat(column(sql("SHOW DATABASES IN ls"), 0)).doesNotContain("made_by_flink");
  }

  @Test
  void dropDatabaseWithTablesNeedsCascade() {
    sql("CREATE DATABASE ls.full_db");
    sql("CREATE TABLE ls.full_db.t (id BIGINT)");
    assertThatThrownBy(() -> sql("DROP DATABASE ls.full_db"))
        .hasStackTraceContaining("full_db")
        .hasStackTraceContaining("is not empty");
    sql("DROP DATABASE ls.full_db CASCADE");
    assertThat(iceberg.namespaceExists(Namespace.of("full_db"))).isFalse();
  }

  @Test
  void createLogTable() {
    sql("CREATE DATABASE ls.logs");
    sql(
        "CREATE TABLE ls.logs.clicks ("
            + " id BIGINT NOT NULL COMMENT 'click id',"
            + " user_name STRING,"
            + " amount DECIMAL(12, 3),"
            + " clicked_at TIMESTAMP(6)"
            + ") COMMENT 'every click' WITH ('lakestream.buckets'='2')");

    assertThat(column(sql("SHOW TABLES IN ls.logs"), 0)).containsExactly("clicks");
    // What the server holds, read with Iceberg's own client.
    Table table = iceberg.loadTable(TableIdentifier.of("logs", "clicks"));
    assertThat(table.properties())
        .containsEntry("lakestream.kind", "log")
        .containsEntry("lakestream.buckets", "2")
        .containsEntry("comment", "every click");
    assertThat(table.schema().identifierFieldIds()).isEmpty();
    assertThat(table.schema().columns())
        .extracting(field -> field.name() + " " + field.type() + " " + field.isOptional())
        .containsExactly(
            "id long false",
            "user_name string true",
            "amount decimal(12, 3) true",
            "clicked_at timestamp true");
    assertThat(table.schema().findField("id").doc()).isEqualTo("click id");

    assertThat(describe("ls.logs.clicks"))
        .containsExactly(
            "id BIGINT false null",
            "user_name STRING true null",
            "amount DECIMAL(12, 3) true null",
            "clicked_at TIMESTAMP(6) true null");
    List<Row> created = sql("SHOW CREATE TABLE ls.logs.clicks");
    assertThat(created.get(0).getField(0).toString())
        .contains("'lakestream.kind' = 'log'")
        .contains("'lakestream.buckets' = '2'")
        .contains("COMMENT 'every click'");
  }

  @Test
  void createPrimaryKeyTable() {
    sql("CREATE DATABASE ls.keyed");
    sql(
        "CREATE TABLE ls.keyed.users ("
            + " region STRING NOT NULL,"
            + " id INT NOT NULL,"
            + " score DOUBLE,"
            + " PRIMARY KEY (region, id) NOT ENFORCED"
            + ") DISTRIBUTED BY HASH(id) INTO 3 BUCKETS");

    Table table = iceberg.loadTable(TableIdentifier.of("keyed", "users"));
    assertThat(table.properties())
        .containsEntry("lakestream.kind", "primary-key")
        .containsEntry("lakestream.buckets", "3")
        .containsEntry("lakestream.bucket-key", "id");
    assertThat(table.schema().identifierFieldNames()).containsExactlyInAnyOrder("region", "id");

    assertThat(describe("ls.keyed.users"))
        .containsExactly(
            "region STRING false PRI(region, id)",
            "id INT false PRI(region, id)",
            "score DOUBLE true null");
  }

  @Test
  void tableCreatedByTheClientShowsEveryType() {
    iceberg.createNamespace(Namespace.of("typed"));
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "l", Types.LongType.get()),
                Types.NestedField.optional(2, "i", Types.IntegerType.get()),
                Types.NestedField.optional(3, "f", Types.FloatType.get()),
                Types.NestedField.optional(4, "d", Types.DoubleType.get()),
                Types.NestedField.optional(5, "b", Types.BooleanType.get()),
                Types.NestedField.optional(6, "dec", Types.DecimalType.of(38, 10)),
                Types.NestedField.optional(7, "day", Types.DateType.get()),
                Types.NestedField.optional(8, "tod", Types.TimeType.get()),
                Types.NestedField.optional(9, "ts", Types.TimestampType.withoutZone()),
                Types.NestedField.optional(10, "tstz", Types.TimestampType.withZone()),
                Types.NestedField.optional(11, "s", Types.StringType.get()),
                Types.NestedField.optional(12, "bin", Types.BinaryType.get())),
            Set.of());
    client
        .admin()
        .createTable(
            new TablePath(null, List.of("typed"), "everything"),
            TableDescriptor.of(
                schema, Map.of("lakestream.kind", "log", "lakestream.buckets", "1")));

    assertThat(column(sql("SHOW TABLES IN ls.typed"), 0)).containsExactly("everything");
    assertThat(describe("ls.typed.everything"))
        .containsExactly(
            "l BIGINT false null",
            "i INT true null",
            "f FLOAT true null",
            "d DOUBLE true null",
            "b BOOLEAN true null",
            "dec DECIMAL(38, 10) true null",
            "day DATE true null",
            "tod TIME(6) true null",
            "ts TIMESTAMP(6) true null",
            "tstz TIMESTAMP_LTZ(6) true null",
            "s STRING true null",
            "bin BYTES true null");
  }

  @Test
  void dropTable() {
    sql("CREATE DATABASE ls.dropping");
    sql("CREATE TABLE ls.dropping.gone (id BIGINT)");
    sql("CREATE TABLE ls.dropping.kept (id BIGINT)");
    assertThat(client.table(new TablePath(null, List.of("dropping"), "gone"))).isNotNull();

    sql("DROP TABLE ls.dropping.gone");
    assertThat(iceberg.tableExists(TableIdentifier.of("dropping", "gone"))).isFalse();
    assertThat(column(sql("SHOW TABLES IN ls.dropping"), 0)).containsExactly("kept");
    assertThatThrownBy(() -> client.table(new TablePath(null, List.of("dropping"), "gone")))
        .hasMessageContaining("gone");
    sql("DROP TABLE IF EXISTS ls.dropping.gone");
    assertThatThrownBy(() -> sql("DROP TABLE ls.dropping.gone"))
        .hasStackTraceContaining("dropping.gone")
        .hasStackTraceContaining("does not exist");
  }

  @Test
  void unknownTableIsNamed() {
    sql("CREATE DATABASE ls.lookups");
    assertThatThrownBy(() -> sql("DESCRIBE ls.lookups.nope"))
        .hasStackTraceContaining("'ls.lookups.nope' doesn't exist");
    assertThatThrownBy(() -> sql("SHOW TABLES IN ls.no_such_database"))
        .hasStackTraceContaining("'no_such_database' doesn't exist");
  }

  @Test
  void unknownCatalogOptionIsNamed() {
    assertThatThrownBy(
            () ->
                sql(
                    "CREATE CATALOG bad WITH ('type'='lakestream', 'uri'='"
                        + server.baseUri()
                        + "', 'rpc-address'='127.0.0.1:"
                        + server.rpcPort()
                        + "', 'colour'='red')"))
        .hasStackTraceContaining("Unsupported options")
        .hasStackTraceContaining("colour");
    assertThatThrownBy(
            () ->
                sql(
                    "CREATE CATALOG bad WITH ('type'='lakestream', 'uri'='"
                        + server.baseUri()
                        + "')"))
        .hasStackTraceContaining("Missing required options")
        .hasStackTraceContaining("rpc-address");
    assertThatThrownBy(
            () ->
                sql(
                    "CREATE CATALOG bad WITH ('type'='lakestream', 'uri'='"
                        + server.baseUri()
                        + "', 'rpc-address'='no-port')"))
        .hasStackTraceContaining("'rpc-address' must be host:port, not no-port");
  }

  @Test
  void unreachableServerIsNamed() throws Exception {
    int nobody = ServerProcess.freePort();
    assertThatThrownBy(
            () ->
                sql(
                    "CREATE CATALOG gone WITH ('type'='lakestream', 'uri'='http://127.0.0.1:"
                        + nobody
                        + "', 'rpc-address'='127.0.0.1:"
                        + nobody
                        + "')"))
        .hasStackTraceContaining(
            "Cannot open catalog gone on Lakestream server http://127.0.0.1:" + nobody);
  }

  @Test
  void badTableDefinitionsAreNamed() {
    sql("CREATE DATABASE ls.bad_tables");
    assertThatThrownBy(
            () -> sql("CREATE TABLE ls.bad_tables.t (id BIGINT) WITH ('connector'='kafka')"))
        .hasStackTraceContaining("option 'connector' is not a Lakestream table property");
    assertThatThrownBy(() -> sql("CREATE TABLE ls.bad_tables.t (id BIGINT, tags ARRAY<INT>)"))
        .hasStackTraceContaining("Column tags has type ARRAY<INT>");
    assertThatThrownBy(
            () -> sql("CREATE TABLE ls.bad_tables.t (id BIGINT) WITH ('lakestream.buckets'='0')"))
        .hasStackTraceContaining("lakestream.buckets");
    assertThatThrownBy(() -> sql("CREATE TABLE ls.no_such_db.t (id BIGINT)"))
        .hasStackTraceContaining("no_such_db")
        .hasStackTraceContaining("does not exist");
    assertThat(iceberg.listTables(Namespace.of("bad_tables"))).isEmpty();
  }

  private List<Row> sql(String statement) {
    TableResult result = flink.executeSql(statement);
    List<Row> rows = new ArrayList<>();
    try (CloseableIterator<Row> iterator = result.collect()) {
      iterator.forEachRemaining(rows::add);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read the result of " + statement, e);
    }
    return rows;
  }

  /** DESCRIBE's rows as "name type nullable key". */
  private List<String> describe(String table) {
    TableResult result = flink.executeSql("DESCRIBE " + table);
    assertThat(result.getResolvedSchema().getColumnNames())
        .startsWith("name", "type", "null", "key");
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<Row> iterator = result.collect()) {
      iterator.forEachRemaining(
          row ->
              rows.add(
                  row.getField(0)
                      + " "
                      + row.getField(1)
                      + " "
                      + row.getField(2)
                      + " "
                      + row.getField(3)));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read the description of " + table, e);
    }
    return rows;
  }

  private static List<Object> column(List<Row> rows, int index) {
    return rows.stream().map(row -> row.getField(index)).toList();
  }
}
