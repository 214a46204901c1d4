package io.lakestream.examples;

import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a whole streaming table, every bucket of every partition, from its first row until it has
 * caught up with the rows the server held when each bucket was last asked, and prints each row with
 * its change type: {@code +I} for a log table's rows, the changelog's {@code +I}, {@code -U},
 * {@code +U}, {@code -D} for a primary-key table's.
 *
 * <pre>{@code
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp ... \
 *     io.lakestream.examples.ReadTableExample lakestream://localhost:9123 "" examples.events
 * }</pre>
 *
 * A reader that follows the table as it grows keeps polling instead of stopping at {@link
 * LogScanner#caughtUp()}.
 */
public final class ReadTableExample {
  private ReadTableExample() {}

  /**
   * Runs the example.
   *
   * @param args the server's URI ({@code lakestream://host:port}), a bearer token (empty for a
   *     server without authentication) and the table ({@code namespace.table}, default {@code
   *     examples.events})
   */
  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println(
          "Usage: ReadTableExample lakestream://host:port [token] [namespace.table]");
      System.exit(2);
    }
    String token = args.length > 1 && !args[1].isEmpty() ? args[1] : null;
    TablePath path = TablePath.of(args.length > 2 ? args[2] : "examples.events");

    try (Connection connection = Connection.open(args[0], token)) {
      Table table = connection.table(path);
      long rows = 0;
      try (LogScanner scanner = table.newScanner()) {
        // Every bucket, and the partitions created while this scanner polls.
        scanner.subscribeAll(LogScanner.earliest());
        do {
          for (ScanBatch batch : scanner.poll(Duration.ofSeconds(1))) {
            try (batch) {
              List<Object[]> values = batch.rows();
              for (int i = 0; i < values.size(); i++) {
                System.out.println(
                    batch.changeType(i).shortString() + " " + Arrays.toString(values.get(i)));
              }
              rows += values.size();
            }
          }
        } while (!scanner.caughtUp());
      }
      System.out.println("caught up after " + rows + " rows of " + path);
    }
  }
}
