package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Types;

/**
 * Rows of the ingest tests' log table {@code events} (id, qty, price, name, day, at), generated
 * from their id, as Arrow batches a client sends and as the values a {@link LogScanner} returns;
 * and reading a whole log table back through the Java client.
 */
final class IngestRows {
  private IngestRows() {}

  /** The Iceberg schema of an {@code events} table. */
  static org.apache.iceberg.Schema icebergSchema() {
    return new org.apache.iceberg.Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
        Types.NestedField.optional(3, "price", Types.DoubleType.get()),
        Types.NestedField.optional(4, "name", Types.StringType.get()),
        Types.NestedField.optional(5, "day", Types.DateType.get()),
        Types.NestedField.optional(6, "at", Types.TimestampType.withZone()));
  }

  /** The schema a client sends: the table's columns, all nullable (as most clients send). */
  static Schema arrowSchema() {
    return new Schema(
        List.of(
            Field.nullable("id", new ArrowType.Int(64, true)),
            Field.nullable("qty", new ArrowType.Int(32, true)),
            Field.nullable("price", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
            new Field(
                "at",
                FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                null)));
  }

  /** The row of an id, as a scanner returns it (Long, Integer, Double, String, Integer, Long). */
  static Object[] row(long id) {
    return new Object[] {
      id,
      id % 7 == 0 ? null : (int) (id % 1000) - 300,
      id % 5 == 0 ? null : id * 0.25,
      id % 3 == 0 ? null : "n" + id + (id % 4 == 0 ? "-é" : ""),
      id % 11 == 0 ? null : 19_000 + (int) (id % 365),
      id % 13 == 0 ? null : 1_700_000_000_000_000L + id * 1_000L
    };
  }

  /** A batch of the rows of ids {@code first} to {@code first + count - 1}. */
  static VectorSchemaRoot batch(BufferAllocator allocator, long first, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(arrowSchema(), allocator);
    fill(root, first, count);
    return root;
  }

  /** Fills a root of {@link #arrowSchema()} with the rows of ids {@code first}... */
  static void fill(VectorSchemaRoot root, long first, int count) {
    root.allocateNew();
    BigIntVector ids = (BigIntVector) root.getVector("id");
    IntVector qty = (IntVector) root.getVector("qty");
    Float8Vector price = (Float8Vector) root.getVector("price");
    VarCharVector name = (VarCharVector) root.getVector("name");
    DateDayVector day = (DateDayVector) root.getVector("day");
    TimeStampMicroTZVector at = (TimeStampMicroTZVector) root.getVector("at");
    for (int i = 0; i < count; i++) {
      Object[] row = row(first + i);
      ids.setSafe(i, (Long) row[0]);
      if (row[1] == null) {
        qty.setNull(i);
      } else {
        qty.setSafe(i, (Integer) row[1]);
      }
      if (row[2] == null) {
        price.setNull(i);
      } else {
        price.setSafe(i, (Double) row[2]);
      }
      if (row[3] == null) {
        name.setNull(i);
      } else {
        name.setSafe(i, ((String) row[3]).getBytes(StandardCharsets.UTF_8));
      }
      if (row[4] == null) {
        day.setNull(i);
      } else {
        day.setSafe(i, (Integer) row[4]);
      }
      if (row[5] == null) {
        at.setNull(i);
      } else {
        at.setSafe(i, (Long) row[5]);
      }
    }
    root.setRowCount(count);
  }

  /** Aggregates of a set of ids, as the tests' queries compute them. */
  record Totals(long count, long sumId, long sumQty, double sumPrice, long names) {
    static Totals of(Iterable<Long> ids) {
      long count = 0;
      long sumId = 0;
      long sumQty = 0;
      double sumPrice = 0;
      long names = 0;
      for (long id : ids) {
        Object[] row = row(id);
        count++;
        sumId += id;
        sumQty += row[1] == null ? 0 : (Integer) row[1];
        sumPrice += row[2] == null ? 0 : (Double) row[2];
        names += row[3] == null ? 0 : 1;
      }
      return new Totals(count, sumId, sumQty, sumPrice, names);
    }
  }

  /** The query whose one row is comparable to {@link Totals}. */
  static String totalsQuery(String table) {
    return "SELECT count(*), CAST(coalesce(sum(id), 0) AS BIGINT), CAST(coalesce(sum(qty), 0) AS BIGINT),"
        + " coalesce(sum(price), 0.0), count(name) FROM "
        + table;
  }

  /** A row read back with where it was stored. */
  record Stored(String partition, int bucket, Object[] values) {}

  /** How many rows a log table holds (its offsets: one per row), without reading them. */
  static long stored(Connection connection, String path) {
    Table table = connection.table(TablePath.of(path));
    long rows = 0;
    for (String partition : table.partitions()) {
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        rows += table.latestOffset(partition, bucket);
      }
    }
    return rows;
  }

  /** Every row of a log table, through the Java client's scanner. */
  static List<Stored> scanAll(Connection connection, String path) {
    Table table = connection.table(TablePath.of(path));
    List<Stored> rows = new ArrayList<>();
    Map<String, Long> ends = new HashMap<>();
    try (LogScanner scanner = table.newScanner()) {
      for (String partition : table.partitions()) {
        for (int bucket = 0; bucket < table.buckets(); bucket++) {
          long end = table.latestOffset(partition, bucket);
          if (end > 0) {
            scanner.subscribe(partition, bucket, LogScanner.earliest());
            ends.put(partition + '\0' + bucket, end);
          }
        }
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!ends.isEmpty()) {
        assertThat(System.nanoTime()).as("scan of %s finished in time", path).isLessThan(deadline);
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
          try (batch) {
            for (Object[] values : batch.rows()) {
              rows.add(new Stored(batch.partition(), batch.bucket(), values));
            }
          }
        }
        ends.entrySet()
            .removeIf(
                entry -> {
                  String key = entry.getKey();
                  int separator = key.indexOf('\0');
                  return scanner.position(
                          key.substring(0, separator),
                          Integer.parseInt(key.substring(separator + 1)))
                      >= entry.getValue();
                });
      }
    }
    return rows;
  }

  /** The call option naming an ingest's idempotency key. */
  static CallOption idempotencyKey(String key) {
    FlightCallHeaders headers = new FlightCallHeaders();
    headers.insert("lakestream-idempotency-key", key);
    return new HeaderCallOption(headers);
  }

  /**
   * Completes a DoPut whose batches are sent and returns the app_metadata of the server's answer;
   * closes the listener.
   */
  static String finishPut(FlightClient.ClientStreamListener stream, SyncPutListener listener)
      throws Exception {
    stream.completed();
    stream.getResult();
    try (PutResult result = listener.read()) {
      ArrowBuf metadata = result.getApplicationMetadata();
      byte[] bytes = new byte[(int) metadata.readableBytes()];
      metadata.getBytes(0, bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } finally {
      listener.close();
    }
  }
}
