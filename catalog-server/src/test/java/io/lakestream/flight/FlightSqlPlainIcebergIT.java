package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.PackagedServerExtension;
import io.lakestream.testing.ServerProcess;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Plain Iceberg tables (no {@code lakestream.kind}: made by Trino, Spark or an Iceberg client)
 * through Flight SQL on the packaged server: they are listed, queried like any table, and refuse
 * SQL writes with the documented message. Also what JDBC tools show of the server.
 */
class FlightSqlPlainIcebergIT {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final int ROWS = 250;

  @RegisterExtension
  static final PackagedServerExtension SERVER =
      PackagedServerExtension.builder().startTimeout(Duration.ofSeconds(60)).build();

  private static RESTCatalog catalog;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    catalog = SERVER.catalog();
    catalog.createNamespace(Namespace.of("plain"), new HashMap<>());
    // What another engine would do: an Iceberg table without Lakestream's properties, with one
    // data file appended by the Iceberg library itself.
    Table table =
        catalog.createTable(
            TableIdentifier.of("plain", "people"), SCHEMA, PartitionSpec.unpartitioned());
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = writers.newDataWriter(files.newOutputFile(), table.spec(), null);
    try (writer) {
      for (long id = 0; id < ROWS; id++) {
        writer.write(GenericRecord.create(SCHEMA).copy(Map.of("id", id, "name", "p" + id)));
      }
    }
    table.newAppend().appendFile(writer.toDataFile()).commit();
    catalog.createTable(
        TableIdentifier.of("plain", "empty"), SCHEMA, PartitionSpec.unpartitioned());
    url = SERVER.flightJdbcUrl();
  }

  @Test
  void selectsReadThePlainTablesRows() throws SQLException {
    long expectedSum = (long) ROWS * (ROWS - 1) / 2;
    assertThat(query("SELECT count(*), CAST(sum(id) AS BIGINT), min(name) FROM plain.people"))
        .containsExactly(List.of((long) ROWS, expectedSum, "p0"));
    assertThat(query("SELECT name FROM plain.people WHERE id = 42"))
        .containsExactly(List.of("p42"));
    assertThat(query("SELECT count(*) FROM plain.empty")).containsExactly(List.of(0L));
  }

  @Test
  void insertsIntoAPlainTableAreRefusedAndWriteNothing() throws SQLException {
    assertThatThrownBy(() -> query("INSERT INTO plain.people VALUES (1000, 'x')"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("plain.people is a plain Iceberg table");
    assertThat(query("SELECT count(*) FROM plain.people")).containsExactly(List.of((long) ROWS));
    assertThat(catalog.loadTable(TableIdentifier.of("plain", "people")).snapshots()).hasSize(1);
  }

  @Test
  void jdbcSeesTheServersNameAndVersion() throws Exception {
    String version = projectVersion();
    try (Connection connection = DriverManager.getConnection(url)) {
      assertThat(connection.getMetaData().getDatabaseProductName()).isEqualTo("Lakestream");
      assertThat(connection.getMetaData().getDatabaseProductVersion()).isEqualTo(version);
    }
  }

  /** The version of the build, read from the root pom rather than from the code under test. */
  private static String projectVersion() throws Exception {
    String pom = Files.readString(ServerProcess.home().resolve("pom.xml"));
    Matcher matcher =
        Pattern.compile("<artifactId>lakestream-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
    assertThat(matcher.find()).as("version in the root pom").isTrue();
    return matcher.group(1);
  }

  private static List<List<Object>> query(String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      List<List<Object>> rows = new ArrayList<>();
      if (!statement.execute(sql)) {
        return rows;
      }
      try (ResultSet result = statement.getResultSet()) {
        int columns = result.getMetaData().getColumnCount();
        while (result.next()) {
          List<Object> row = new ArrayList<>();
          for (int column = 1; column <= columns; column++) {
            row.add(result.getObject(column));
          }
          rows.add(row);
        }
      }
      return rows;
    }
  }
}
