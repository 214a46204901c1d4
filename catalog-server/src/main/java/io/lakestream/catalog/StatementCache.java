package io.lakestream.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Statements prepared once per physical database connection and then reused, for the SQL that runs
 * on every request or commit: SQLite compiles a statement on every prepare, which was a few percent
 * of the catalog's work under contending commits.
 *
 * <p>A statement belongs to its connection and is used only by the thread holding that connection
 * from the pool; its users reset it by running it and never close it. Statements of connections the
 * pool has retired are dropped when a new connection first prepares.
 */
final class StatementCache {
  private final Map<Connection, Map<String, PreparedStatement>> byConnection =
      new ConcurrentHashMap<>();

  /** The statement for {@code sql} on the physical connection behind {@code pooled}. */
  PreparedStatement get(Connection pooled, String sql) throws SQLException {
    Connection physical = pooled.unwrap(Connection.class);
    Map<String, PreparedStatement> statements = byConnection.get(physical);
    if (statements == null) {
      byConnection.keySet().removeIf(StatementCache::isClosed);
      // Read and written only by the thread holding the connection; the pool's hand-over of the
      // connection orders one holder's writes before the next holder's reads.
      statements = new HashMap<>();
      byConnection.put(physical, statements);
    }
    PreparedStatement statement = statements.get(sql);
    if (statement == null || statement.isClosed()) {
      statement = physical.prepareStatement(sql);
      statements.put(sql, statement);
    }
    return statement;
  }

  /** Forgets every statement (their connections are closing). */
  void clear() {
    byConnection.clear();
  }

  private static boolean isClosed(Connection connection) {
    try {
      return connection.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }
}
