package io.lakestream.cli;

import io.lakestream.client.Connection;
import io.lakestream.client.MergeEngineType;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code create TABLE --kind log|primary-key --schema ...}: creates a streaming table. */
@Command(
    name = "create",
    mixinStandardHelpOptions = true,
    description = {
      "Creates a streaming table (and its namespace when missing).",
      "Example: create shop.users --kind primary-key --schema \"id bigint not null, name string\""
          + " --primary-key id --buckets 4",
      "Types: boolean, int, bigint, float, double, string, binary, date, time, timestamp,"
          + " timestamptz, decimal(P,S)."
    })
final class CreateCommand implements Callable<Integer> {
  @Mixin ServerOptions server;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String table;

  @Option(
      names = "--kind",
      required = true,
      paramLabel = "KIND",
      description = "log or primary-key")
  String kind;

  @Option(
      names = "--schema",
      required = true,
      paramLabel = "COLUMNS",
      description = "Columns, \"name type [not null], ...\"")
  String schema;

  @Option(
      names = "--primary-key",
      paramLabel = "COLUMNS",
      split = ",",
      description = "Key columns of a primary-key table, comma-separated")
  List<String> primaryKey;

  @Option(
      names = "--buckets",
      paramLabel = "N",
      defaultValue = "1",
      description = "Bucket count (default: ${DEFAULT-VALUE})")
  int buckets;

  @Option(
      names = "--bucket-key",
      paramLabel = "COLUMNS",
      split = ",",
      description = "Columns whose hash picks a row's bucket")
  List<String> bucketKey;

  @Option(
      names = "--partition-by",
      paramLabel = "FIELDS",
      description = "Columns and year(c)/month(c)/day(c)/hour(c), comma-separated")
  String partitionBy;

  @Option(
      names = "--merge-engine",
      paramLabel = "ENGINE",
      description = "Merge engine of a primary-key table (e.g. first-row, versioned)")
  String mergeEngine;

  @Option(
      names = "--tiering-interval",
      paramLabel = "SECONDS",
      description = "How often the table is tiered into the lake, in seconds")
  Long tieringIntervalSeconds;

  @Option(names = "--if-not-exists", description = "Succeed when the table exists already")
  boolean ifNotExists;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    TablePath path = Tables.path(table);
    TableDescriptor descriptor = descriptor();
    try (Connection connection = server.connect()) {
      connection.admin().createNamespaceIfNotExists(null, path.namespace());
      try {
        connection.admin().createTable(path, descriptor);
      } catch (RpcException e) {
        if (e.error() == ErrorCode.ALREADY_EXISTS) {
          if (ifNotExists) {
            print("Table " + path + " exists already");
            return LakestreamCli.EXIT_OK;
          }
          throw new CliFailure("Table " + path + " exists already", e);
        }
        if (e.error() == ErrorCode.INVALID_TABLE_DEFINITION) {
          throw new UsageError("The server refused the table definition: " + e.getMessage());
        }
        throw e;
      }
    }
    print("Created " + kind.toLowerCase(Locale.ROOT) + " table " + path);
    return LakestreamCli.EXIT_OK;
  }

  private TableDescriptor descriptor() {
    Schema columns = SchemaSpec.parse(schema);
    TableDescriptor descriptor;
    switch (kind.toLowerCase(Locale.ROOT)) {
      case "log" -> {
        if (primaryKey != null) {
          throw new UsageError("--primary-key is only for --kind primary-key");
        }
        descriptor = TableDescriptor.logTable(columns, buckets);
      }
      case "primary-key" -> {
        if (primaryKey == null || primaryKey.isEmpty()) {
          throw new UsageError("--kind primary-key needs --primary-key COLUMNS");
        }
        descriptor = TableDescriptor.primaryKeyTable(columns, primaryKey, buckets);
      }
      default -> throw new UsageError("Unknown --kind '" + kind + "': expected log or primary-key");
    }
    if (bucketKey != null) {
      descriptor = descriptor.withBucketKey(bucketKey);
    }
    if (mergeEngine != null) {
      MergeEngineType engine =
          MergeEngineType.fromValue(mergeEngine.toLowerCase(Locale.ROOT))
              .orElseThrow(() -> new UsageError("Unknown --merge-engine '" + mergeEngine + "'"));
      descriptor = descriptor.withMergeEngine(engine);
    }
    if (tieringIntervalSeconds != null) {
      descriptor = descriptor.withTieringInterval(Duration.ofSeconds(tieringIntervalSeconds));
    }
    if (partitionBy != null) {
      // The key columns are required in the descriptor's schema: build the spec on that one.
      Schema keyed = primaryKey == null ? columns : requiredKeys(columns, primaryKey);
      PartitionSpec partitions = SchemaSpec.partitionSpec(keyed, partitionBy);
      descriptor = descriptor.withPartitionSpec(partitions);
    }
    return descriptor;
  }

  private static Schema requiredKeys(Schema schema, List<String> keys) {
    return new Schema(
        schema.columns().stream()
            .map(field -> keys.contains(field.name()) ? field.asRequired() : field)
            .toList());
  }

  private void print(String line) {
    spec.commandLine().getOut().println(line);
    spec.commandLine().getOut().flush();
  }
}
