package io.lakestream.examples;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.ScanRow;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriteAck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
      // The writer batches rows per bucket and sends them in the background. Each append returns
      // at once with a future of the row's acknowledgement (shared by the rows of one batch): it
      // completes once the row is durable on the server, or fails with the batch's RpcException.
      // close() sends what is left and returns once every row is acknowledged.
      List<CompletableFuture<WriteAck>> acks = new ArrayList<>();
      try (AppendWriter writer = events.newAppendWriter()) {
        acks.add(writer.append(1L, "signup"));
        acks.add(writer.append(2L, "login"));
        acks.add(writer.append(1L, "purchase"));
      }
      for (CompletableFuture<WriteAck> ack : acks) {
        WriteAck done = ack.join();
        System.out.printf(
            "acknowledged: %s, offsets %d..%d%n",
            done.bucket(), done.baseOffset(), done.lastOffset());
      }
      System.out.println("appended 3 rows to " + EVENTS);

      long rows = 0;
      try (LogScanner scanner = events.newScanner()) {
        scanner.subscribeAll(LogScanner.earliest());
        do {
          for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
            try (batch) {
              // A typed view over the batch's columns: no object per row, getters by position.
              ScanRow row = batch.row();
              int id = row.indexOf("id");
              int event = row.indexOf("event");
              while (row.next()) {
                System.out.printf(
                    "bucket %d offset %d: [%s, %s]%n",
                    batch.bucket(),
                    row.offset(),
                    row.isNull(id) ? null : row.getLong(id),
                    row.isNull(event) ? null : row.getString(event));
                rows++;
              }
            }
          }
        } while (!scanner.caughtUp());
      }
      System.out.println("scanned " + rows + " rows of " + EVENTS);
    }
  }
}
