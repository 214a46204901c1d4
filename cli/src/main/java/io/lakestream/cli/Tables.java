package io.lakestream.cli;

import io.lakestream.client.Connection;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.util.Arrays;
import java.util.List;

/** Table and namespace names as the commands take them, and the "does not exist" failures. */
final class Tables {
  private Tables() {}

  /**
   * Parses {@code namespace.table} (or {@code level.level.table}).
   *
   * @throws UsageError for a name without a namespace or with an empty part
   */
  static TablePath path(String name) {
    if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
      throw new UsageError("Invalid table name '" + name + "': expected namespace.table");
    }
    try {
      return TablePath.of(name);
    } catch (IllegalArgumentException e) {
      throw new UsageError("Invalid table name '" + name + "': expected namespace.table");
    }
  }

  /** Parses a dotted namespace. */
  static List<String> namespace(String name) {
    if (name.isEmpty() || name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
      throw new UsageError("Invalid namespace '" + name + "'");
    }
    return Arrays.asList(name.split("\\."));
  }

  /** A failure that a table does not exist becomes one that names it; others pass unchanged. */
  static RuntimeException notFound(TablePath path, RpcException error) {
    if (error.error() == ErrorCode.UNKNOWN_TABLE || error.error() == ErrorCode.UNKNOWN_NAMESPACE) {
      return new CliFailure("Table " + path + " does not exist", error);
    }
    return error;
  }

  /**
   * Looks up a streaming table.
   *
   * @throws CliFailure naming the table when it does not exist or is a plain Iceberg table
   */
  static Table open(Connection connection, TablePath path) {
    try {
      return connection.table(path);
    } catch (RpcException e) {
      if (e.error() == ErrorCode.UNKNOWN_TABLE && connection.admin().tableExists(path)) {
        throw new CliFailure(
            "Table "
                + path
                + " is a plain Iceberg table, not a streaming table (query it with sql)",
            e);
      }
      throw notFound(path, e);
    }
  }
}
