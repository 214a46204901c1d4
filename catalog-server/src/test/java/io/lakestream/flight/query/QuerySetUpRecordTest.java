package io.lakestream.flight.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.EmbeddedLakestream;
import io.lakestream.testing.FlightJdbc;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's real query set-ups tell what they create (schemas, views and tables, attached
 * databases; besides those only the Arrow rows view), so that giving a database back by that record
 * leaves it empty: here every database so given back is also searched ({@link
 * SandboxedDatabases#CHECK_EVERY_PROPERTY} = 1), and none may hold anything more. A namespace named
 * {@code main} puts views and tables in DuckDB's own schema, which is not dropped.
 */
class QuerySetUpRecordTest {
  private static final int ROWS = 300;
  private static final String ODD = "odd\"CASCADE;DETACH(rec);--";

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static String url;

  @BeforeAll
  static void start() {
    System.setProperty(SandboxedDatabases.CHECK_EVERY_PROPERTY, "1");
    try {
      lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    } finally {
      System.clearProperty(SandboxedDatabases.CHECK_EVERY_PROPERTY);
    }
    url = FlightJdbc.url(lakestream.server().flightPort());
    RESTCatalog catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("rec"), new HashMap<>());
    catalog.createNamespace(Namespace.of("main"), new HashMap<>());
    // A name written to break out of the drop statements' quoting.
    catalog.createNamespace(Namespace.of(ODD), new HashMap<>());
    catalog.createTable(
        TableIdentifier.of(ODD, "t"),
        new Schema(Types.NestedField.required(1, "n", Types.LongType.get())),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "1")));
    catalog.createTable(
        TableIdentifier.of("main", "numbers"),
        new Schema(Types.NestedField.required(1, "n", Types.LongType.get())),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "1")));
    catalog.createTable(
        TableIdentifier.of("main", "by_uuid"),
        new Schema(
            Types.NestedField.required(1, "x", Types.LongType.get()),
            Types.NestedField.optional(2, "u", Types.UUIDType.get())),
        PartitionSpec.unpartitioned());
    create(
        catalog,
        "events",
        "log",
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "category", Types.StringType.get())));
    create(
        catalog,
        "users",
        "primary-key",
        new Schema(
            List.of(
                Types.NestedField.required(1, "user_id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())),
            Set.of(1)));
    catalog.createTable(
        TableIdentifier.of("rec", "plain"),
        new Schema(Types.NestedField.required(1, "x", Types.LongType.get())),
        PartitionSpec.unpartitioned());
    // A uuid column: loaded the reference way, into a table, not viewed.
    catalog.createTable(
        TableIdentifier.of("rec", "keyed_by_uuid"),
        new Schema(
            Types.NestedField.required(1, "x", Types.LongType.get()),
            Types.NestedField.optional(2, "u", Types.UUIDType.get())),
        PartitionSpec.unpartitioned());
    Connection connection = lakestream.connection();
    try (AppendWriter writer =
        connection.table(TablePath.of("rec.events")).newAppendWriter(WriterOptions.defaults())) {
      for (long id = 0; id < ROWS; id++) {
        writer.append(id, "c" + (id % 3));
      }
      writer.flush();
    }
    try (AppendWriter writer =
        connection.table(TablePath.of("main.numbers")).newAppendWriter(WriterOptions.defaults())) {
      for (long n = 0; n < 4; n++) {
        writer.append(n);
      }
      writer.flush();
    }
    try (UpsertWriter writer =
        connection.table(TablePath.of("rec.users")).newUpsertWriter(WriterOptions.defaults())) {
      for (long id = 0; id < 10; id++) {
        writer.upsert(id, "user" + id);
      }
      writer.flush();
    }
  }

  private static void create(RESTCatalog catalog, String name, String kind, Schema schema) {
    catalog.createTable(
        TableIdentifier.of("rec", name),
        schema,
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", kind, "lakestream.buckets", "2")));
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  @Test
  void everyKindOfSetUpLeavesItsDatabaseEmptyByItsRecord() throws Exception {
    long before = SandboxedDatabases.unrecordedLeftovers();
    try (java.sql.Connection flight = DriverManager.getConnection(url)) {
      for (int round = 0; round < 2; round++) {
        assertThat(FlightJdbc.query(flight, "SELECT count(*) FROM rec.events"))
            .containsExactly(List.of((long) ROWS));
        assertThat(
                FlightJdbc.query(
                    flight,
                    "SELECT count(*) FROM rec.events e JOIN rec.events f ON e.id = f.id"
                        + " WHERE e.category = 'c1'"))
            .containsExactly(List.of((long) ROWS / 3));
        assertThat(FlightJdbc.query(flight, "SELECT count(*) FROM \"default\".rec.events"))
            .containsExactly(List.of((long) ROWS));
        assertThat(FlightJdbc.query(flight, "SELECT name FROM rec.users WHERE user_id = 7"))
            .containsExactly(List.of("user7"));
        assertThat(
                FlightJdbc.query(
                    flight,
                    "SELECT count(*) FROM rec.users u JOIN \"default\".rec.events e"
                        + " ON u.user_id = e.id"))
            .containsExactly(List.of(10L));
        assertThat(FlightJdbc.query(flight, "SELECT count(*) FROM rec.plain"))
            .containsExactly(List.of(0L));
        assertThat(FlightJdbc.query(flight, "SELECT count(*) FROM rec.keyed_by_uuid"))
            .containsExactly(List.of(0L));
        assertThat(FlightJdbc.query(flight, "SELECT 41 + 1")).containsExactly(List.of(42L));
        assertThat(
                FlightJdbc.query(
                    flight,
                    "SELECT count(*) FROM main.numbers a JOIN main.by_uuid b ON a.n = b.x"
                        + " UNION ALL SELECT sum(n) FROM main.numbers"))
            .containsExactlyInAnyOrder(List.of(0L), List.of(6L));
        assertThat(
                FlightJdbc.query(
                    flight, "SELECT count(*) FROM \"" + ODD.replace("\"", "\"\"") + "\".t"))
            .containsExactly(List.of(0L));
        try (PreparedStatement seen =
            flight.prepareStatement("SELECT count(*) FROM rec.events WHERE id = ?")) {
          seen.setLong(1, 5);
          try (ResultSet result = seen.executeQuery()) {
            assertThat(FlightJdbc.rows(result)).containsExactly(List.of(1L));
          }
        }
      }
    }
    assertThat(SandboxedDatabases.unrecordedLeftovers())
        .as("databases that held more than their set-up recorded")
        .isEqualTo(before);
  }
}
