package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Flight SQL query reads Lakestream tables only: no file-reading table function, no statement
 * other than a query, no file named as a table; and one query's spilled rows are out of every other
 * query's reach. The engine's memory limit is small here, so that a big sort spills.
 */
class FlightSqlSandboxTest {
  /** Sorted rows of about 130 MB, twice the engine's memory limit: the sort spills. */
  private static final String SPILLING_SORT =
      "SELECT range AS n, md5(range::VARCHAR) AS h FROM range(3000000) ORDER BY h";

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static BufferAllocator allocator;
  private static FlightSqlClient first;
  private static FlightSqlClient second;

  @BeforeAll
  static void start() {
    lakestream =
        EmbeddedLakestream.start(
            data,
            Map.of(
                "tiering.enabled", "false",
                "flight.query-memory-limit", "64mb",
                "flight.query-threads", "1"));
    allocator = new RootAllocator();
    first = client();
    second = client();
  }

  private static FlightSqlClient client() {
    return new FlightSqlClient(
        FlightClient.builder(
                allocator, Location.forGrpcInsecure("127.0.0.1", lakestream.server().flightPort()))
            .build());
  }

  @AfterAll
  static void stop() throws Exception {
    first.close();
    second.close();
    allocator.close();
    lakestream.close();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT * FROM glob('.tmp/*')",
        "SELECT * FROM read_blob('.tmp/*')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_csv_auto('/etc/passwd')",
        "SELECT * FROM read_parquet('x.parquet')",
        "SELECT * FROM parquet_scan('x.parquet')",
        "SELECT * FROM read_json('x.json')",
        "SELECT * FROM read_json_auto('x.json')",
        "SELECT * FROM read_ndjson('x.json')",
        "SELECT * FROM sniff_csv('/etc/passwd')",
        "SELECT * FROM parquet_metadata('x.parquet')",
        "SELECT * FROM parquet_schema('x.parquet')",
        "SELECT * FROM iceberg_scan('x')",
        "SELECT * FROM delta_scan('x')",
        "SELECT * FROM query('SELECT * FROM glob(''*'')')",
        "SELECT * FROM query_table('t')",
        "SELECT * FROM main.glob('*')",
        "SELECT * FROM duckdb_temporary_files()",
        "SELECT * FROM range(3) WHERE EXISTS (SELECT * FROM glob('*'))",
        "WITH files AS (SELECT * FROM read_blob('*')) SELECT count(*) FROM files",
        "SELECT query('SELECT 1')",
        "SELECT * FROM 'data.parquet'",
        "SELECT * FROM \"/etc/passwd\"",
        "SELECT * FROM 's3://bucket/x.csv'"
      })
  void fileReadingSqlIsRefused(String sql) {
    assertThatThrownBy(() -> first.execute(sql))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(CallStatus.INVALID_ARGUMENT.code());
              assertThat(e.getMessage()).containsAnyOf("not allowed", "names a file");
            });
    assertThatThrownBy(() -> first.prepare(sql))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(CallStatus.INVALID_ARGUMENT.code()));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "COPY (SELECT 1) TO 'out.csv'",
        "ATTACH 'other.db' AS other",
        "INSTALL httpfs",
        "LOAD httpfs",
        "PRAGMA enable_profiling",
        "SET enable_external_access = true",
        "SET temp_directory = '/tmp'",
        "SELECT 1; SELECT * FROM glob('*')"
      })
  void statementsOtherThanQueriesAreRefused(String sql) {
    assertThatThrownBy(() -> first.execute(sql))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(CallStatus.INVALID_ARGUMENT.code()));
  }

  @Test
  void ordinaryTableFunctionsStillWork() throws Exception {
    FlightInfo info =
        first.execute("SELECT count(*) AS n FROM range(10) r, generate_series(1, 3) g");
    try (FlightStream stream = first.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      assertThat(stream.getRoot().getVector(0).getObject(0)).isEqualTo(30L);
    }
  }

  @Test
  void anotherQuerySeesNoneOfASpillingQuerysFiles() throws Exception {
    Path scratch = data.resolve("flight-sql");
    FlightInfo sorting = first.execute(SPILLING_SORT);
    try (FlightStream sorted = first.getStream(sorting.getEndpoints().get(0).getTicket())) {
      assertThat(sorted.next()).isTrue(); // the sort is done and its rows wait, spilled
      List<Path> spilled = files(scratch.resolve("query-spill"));
      assertThat(spilled).as("the sort's spilled files").isNotEmpty();
      assertThat(files(Path.of(".tmp"))).as("nothing spills into the working directory").isEmpty();
      for (String probe :
          List.of(
              "SELECT * FROM glob('.tmp/*')",
              "SELECT * FROM read_blob('.tmp/*')",
              "SELECT * FROM glob('" + spilled.get(0).getParent() + "/*')",
              "SELECT * FROM read_blob('" + spilled.get(0) + "')",
              "SELECT * FROM '" + spilled.get(0) + "'")) {
        assertThatThrownBy(() -> second.execute(probe))
            .as(probe)
            .isInstanceOfSatisfying(
                FlightRuntimeException.class,
                e -> assertThat(e.status().code()).isEqualTo(CallStatus.INVALID_ARGUMENT.code()));
      }
      long rows = sorted.getRoot().getRowCount();
      while (sorted.next()) {
        rows += sorted.getRoot().getRowCount();
      }
      assertThat(rows).isEqualTo(3_000_000);
    }
  }

  /** The regular files under {@code directory} (none when it does not exist). */
  private static List<Path> files(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(directory)) {
      return walk.filter(Files::isRegularFile)
          .filter(file -> Files.isReadable(file) && size(file) > 0)
          .toList();
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0; // removed meanwhile
    }
  }
}
