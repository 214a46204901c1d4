package io.lakestream.examples;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Creates the log table {@code examples.events} (if it is not there), appends three rows, and reads
 * the whole table back until it has caught up with what the server holds.
 *
 * <pre>{@code
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp ... \
 *     io.lakestream.examples.LogTableExample lakestream://localhost:9123 [token]
 * }</pre>
 *
 * Each run appends three more rows to the same table.
 */
public final class LogTableExample {
  /** The table this example writes. */
  public static final TablePath EVENTS = TablePath.of("examples.events");

  private LogTableExample() {}

  /**
   * Runs the example.
   *
   * @param args the server's URI ({@code lakestream://host:port}) and, for a server with
   *     authentication, a bearer token
   */
  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("Usage: LogTableExample lakestream://host:port [token]");
      System.exit(2);
    }
    String token = args.length > 1 && !args[1].isEmpty() ? args[1] : null;

    try (Connection connection = Connection.open(args[0], token)) {
      Schema schema =
          new Schema(
              Types.NestedField.optional(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "event", Types.StringType.get()));
      connection.admin().createNamespaceIfNotExists(null, List.of("examples"));
      // Four buckets; rows of one id go to one bucket and keep their order there.
      connection
          .admin()
          .createTableIfNotExists(EVENTS, TableDescriptor.logTable(schema, 4).withBucketKey("id"));

      Table events = connection.table(EVENTS);
      // The writer batches rows per bucket and sends them in the background; close() sends what
      // is left and returns once every row is acknowledged (durable on the server).
      try (AppendWriter writer = events.newAppendWriter()) {
        writer.append(1L, "signup");
        writer.append(2L, "login");
        writer.append(1L, "purchase");
      }
      System.out.println("appended 3 rows to " + EVENTS);

      long rows = 0;
      try (LogScanner scanner = events.newScanner()) {
        scanner.subscribeAll(LogScanner.earliest());
        do {
          for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
            try (batch) {
              List<Object[]> values = batch.rows();
              for (int i = 0; i < values.size(); i++) {
                System.out.printf(
                    "bucket %d offset %d: %s%n",
                    batch.bucket(), batch.baseOffset() + i, Arrays.toString(values.get(i)));
              }
              rows += values.size();
            }
          }
        } while (!scanner.caughtUp());
      }
      System.out.println("scanned " + rows + " rows of " + EVENTS);
    }
  }
}
