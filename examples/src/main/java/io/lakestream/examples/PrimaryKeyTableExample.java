package io.lakestream.examples;

import io.lakestream.client.Connection;
import io.lakestream.client.Lookuper;
import io.lakestream.client.Table;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.UpsertWriter;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Creates the primary-key table {@code examples.users} (if it is not there), inserts three users,
 * updates one and deletes another, then looks each up by key.
 *
 * <pre>{@code
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp ... \
 *     io.lakestream.examples.PrimaryKeyTableExample lakestream://localhost:9123 [token]
 * }</pre>
 */
public final class PrimaryKeyTableExample {
  /** The table this example writes. */
  public static final TablePath USERS = TablePath.of("examples.users");

  private PrimaryKeyTableExample() {}

  /**
   * Runs the example.
   *
   * @param args the server's URI ({@code lakestream://host:port}) and, for a server with
   *     authentication, a bearer token
   */
  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("Usage: PrimaryKeyTableExample lakestream://host:port [token]");
      System.exit(2);
    }
    String token = args.length > 1 && !args[1].isEmpty() ? args[1] : null;

    try (Connection connection = Connection.open(args[0], token)) {
      Schema schema =
          new Schema(
              Types.NestedField.optional(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get()),
              Types.NestedField.optional(3, "city", Types.StringType.get()));
      connection.admin().createNamespaceIfNotExists(null, List.of("examples"));
      // The key column becomes a required identifier field of the table's schema.
      connection
          .admin()
          .createTableIfNotExists(USERS, TableDescriptor.primaryKeyTable(schema, List.of("id"), 2));

      Table users = connection.table(USERS);
      // Writes of one key keep their order; close() returns once every write is acknowledged,
      // after which lookups see them.
      try (UpsertWriter writer = users.newUpsertWriter()) {
        writer.upsert(1L, "ada", "london");
        writer.upsert(2L, "grace", "arlington");
        writer.upsert(3L, "linus", "helsinki");
        writer.upsert(1L, "ada", "cambridge"); // replaces the row of key 1
        writer.delete(2L); // removes the row of key 2
      }
      System.out.println("wrote 4 upserts and 1 delete to " + USERS);

      Lookuper lookuper = users.newLookuper();
      for (long id = 1; id <= 3; id++) {
        Object[] row = lookuper.lookup(id).join();
        System.out.println("id " + id + ": " + (row == null ? "no row" : Arrays.toString(row)));
      }
    }
  }
}
