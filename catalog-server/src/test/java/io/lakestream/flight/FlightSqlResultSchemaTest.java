package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.EmbeddedLakestream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema a query's FlightInfo announces, which the endpoint keeps between runs of the same
 * statement: it follows the types of the values bound to a prepared statement and a table dropped
 * and created again under the same name with other column types, and matches the rows streamed.
 */
class FlightSqlResultSchemaTest {
  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    lakestream.catalog().createNamespace(Namespace.of("schemas"), new HashMap<>());
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static FlightSqlClient client(BufferAllocator allocator) {
    return new FlightSqlClient(
        FlightClient.builder(
                allocator, Location.forGrpcInsecure("127.0.0.1", lakestream.server().flightPort()))
            .build());
  }

  @Test
  void aPreparedStatementAnnouncesTheTypeOfEachBindingItRuns() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = client(allocator);
        FlightSqlClient.PreparedStatement prepared = client.prepare("SELECT ? AS v")) {
      for (int run = 0; run < 2; run++) {
        try (BigIntVector number = new BigIntVector("p", allocator)) {
          number.allocateNew(1);
          number.set(0, 42);
          number.setValueCount(1);
          assertThat(runBound(client, prepared, number))
              .containsExactly(new ArrowType.Int(64, true), 42L);
        }
        try (VarCharVector text = new VarCharVector("p", allocator)) {
          text.allocateNew(1);
          text.setSafe(0, "forty-two".getBytes(StandardCharsets.UTF_8));
          text.setValueCount(1);
          assertThat(runBound(client, prepared, text))
              .containsExactly(ArrowType.Utf8.INSTANCE, "forty-two");
        }
      }
    }
  }

  /** Binds {@code parameter}, runs the statement: the announced type of v and its value. */
  private static List<Object> runBound(
      FlightSqlClient client, FlightSqlClient.PreparedStatement prepared, FieldVector parameter)
      throws Exception {
    try (VectorSchemaRoot parameters = VectorSchemaRoot.of(parameter)) {
      parameters.setRowCount(1);
      prepared.setParameters(parameters);
      FlightInfo info = prepared.execute();
      List<Object> announcedAndRead = read(client, info);
      prepared.clearParameters();
      return announcedAndRead;
    }
  }

  /** The first column's type as the FlightInfo announces it and its first value as streamed. */
  private static List<Object> read(FlightSqlClient client, FlightInfo info) throws Exception {
    Field announced = info.getSchema().getFields().get(0);
    Object value = null;
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(endpoint.getTicket())) {
        assertThat(stream.getSchema().getFields().get(0).getType())
            .as("streamed type")
            .isEqualTo(announced.getType());
        while (stream.next()) {
          if (value == null && stream.getRoot().getRowCount() > 0) {
            value = stream.getRoot().getVector(0).getObject(0);
          }
        }
      }
    }
    return value == null
        ? List.of(announced.getType())
        : List.of(
            announced.getType(),
            value instanceof org.apache.arrow.vector.util.Text t ? t.toString() : value);
  }

  @Test
  void aTableCreatedAgainWithOtherTypesIsAnnouncedWithItsNewTypes() throws Exception {
    TableIdentifier name = TableIdentifier.of("schemas", "recreated");
    String sql = "SELECT * FROM schemas.recreated";
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client = client(allocator)) {
      create(name, Types.LongType.get());
      for (int run = 0; run < 2; run++) {
        assertThat(read(client, client.execute(sql))).containsExactly(new ArrowType.Int(64, true));
      }
      lakestream.catalog().dropTable(name);
      create(name, Types.StringType.get());
      for (int run = 0; run < 2; run++) {
        assertThat(read(client, client.execute(sql))).containsExactly(ArrowType.Utf8.INSTANCE);
      }
    }
  }

  private static void create(TableIdentifier name, org.apache.iceberg.types.Type type) {
    lakestream
        .catalog()
        .createTable(
            name,
            new Schema(Types.NestedField.optional(1, "v", type)),
            PartitionSpec.unpartitioned(),
            new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "1")));
  }
}
