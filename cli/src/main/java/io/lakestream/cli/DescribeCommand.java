package io.lakestream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TableDescription;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.RpcException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code describe TABLE}: a table's schema, kind, options and per-bucket offsets. */
@Command(
    name = "describe",
    mixinStandardHelpOptions = true,
    description = {
      "Shows a table's schema, kind, buckets, merge engine and other lakestream.* properties, and"
          + " per bucket its earliest offset, latest offset (high watermark), tiered offset (the"
          + " next offset to tier; -1 when nothing was tiered) and lag (rows not in the lake yet)."
    })
final class DescribeCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Mixin ServerOptions server;

  @Parameters(index = "0", paramLabel = "TABLE", description = "namespace.table")
  String table;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    TablePath path = Tables.path(table);
    TableDescription description;
    try (Connection connection = server.connect()) {
      try {
        description = connection.admin().describe(path);
      } catch (RpcException e) {
        throw Tables.notFound(path, e);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    Map<String, String> properties = description.properties();
    out.println("Table:        " + description.path());
    out.println("Id:           " + description.tableId());
    out.println("Kind:         " + description.kind().map(TableKind::value).orElse("iceberg"));
    if (description.kind().isPresent()) {
      out.println("Buckets:      " + properties.get(LakestreamProperties.BUCKETS));
      String bucketKey = properties.get(LakestreamProperties.BUCKET_KEY);
      if (bucketKey != null) {
        out.println("Bucket key:   " + bucketKey);
      }
    }
    if (description.kind().orElse(null) == TableKind.PRIMARY_KEY) {
      out.println(
          "Merge engine: "
              + properties.getOrDefault(LakestreamProperties.MERGE_ENGINE, "(default: last-row)"));
    }
    JsonNode schema = parse(description.schemaJson());
    Set<Integer> keyIds = new HashSet<>();
    schema.path("identifier-field-ids").forEach(id -> keyIds.add(id.asInt()));
    List<String> keyNames = new ArrayList<>();
    Map<Integer, String> names = new TreeMap<>();
    for (JsonNode field : schema.path("fields")) {
      names.put(field.path("id").asInt(), field.path("name").asText());
      if (keyIds.contains(field.path("id").asInt())) {
        keyNames.add(field.path("name").asText());
      }
    }
    if (!keyNames.isEmpty()) {
      out.println("Primary key:  " + String.join(", ", keyNames));
    }
    if (!description.partitionSpecJson().isEmpty()) {
      List<String> partitionFields = new ArrayList<>();
      for (JsonNode field : parse(description.partitionSpecJson()).path("fields")) {
        String source = names.getOrDefault(field.path("source-id").asInt(), "?");
        String transform = field.path("transform").asText();
        partitionFields.add(transform.equals("identity") ? source : transform + "(" + source + ")");
      }
      if (!partitionFields.isEmpty()) {
        out.println("Partitioned:  " + String.join(", ", partitionFields));
      }
    }
    Map<String, String> others = new TreeMap<>();
    properties.forEach(
        (key, value) -> {
          if (key.startsWith(LakestreamProperties.PREFIX)
              && !key.equals(LakestreamProperties.KIND)
              && !key.equals(LakestreamProperties.BUCKETS)
              && !key.equals(LakestreamProperties.BUCKET_KEY)
              && !key.equals(LakestreamProperties.MERGE_ENGINE)) {
            others.put(key, value);
          }
        });
    others.forEach((key, value) -> out.println("Property:     " + key + "=" + value));
    out.println();
    out.println("Columns:");
    RowPrinter columns =
        new RowPrinter(
            out,
            RowPrinter.Format.TABLE,
            List.of(
                new RowPrinter.Column("name", false),
                new RowPrinter.Column("type", false),
                new RowPrinter.Column("nullable", false)));
    for (JsonNode field : schema.path("fields")) {
      JsonNode type = field.path("type");
      columns.add(
          new String[] {
            field.path("name").asText(),
            type.isTextual() ? type.asText() : type.toString(),
            field.path("required").asBoolean() ? "no" : "yes"
          });
    }
    columns.flush();
    if (!description.buckets().isEmpty()) {
      out.println();
      out.println("Buckets:");
      RowPrinter buckets =
          new RowPrinter(
              out,
              RowPrinter.Format.TABLE,
              List.of(
                  new RowPrinter.Column("partition", false),
                  new RowPrinter.Column("bucket", true),
                  new RowPrinter.Column("earliest", true),
                  new RowPrinter.Column("latest", true),
                  new RowPrinter.Column("tiered", true),
                  new RowPrinter.Column("lag", true)));
      description
          .buckets()
          .forEach(
              (TableBucket bucket, TableDescription.BucketStatus status) ->
                  buckets.add(
                      new String[] {
                        bucket.partition(),
                        Integer.toString(bucket.bucket()),
                        Long.toString(status.earliestOffset()),
                        Long.toString(status.latestOffset()),
                        Long.toString(status.tieredOffset()),
                        Long.toString(status.lag())
                      }));
      buckets.flush();
      out.println("Total lag:    " + description.totalLag());
    }
    out.flush();
    return LakestreamCli.EXIT_OK;
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new CliFailure("The server sent malformed JSON: " + e.getMessage(), e);
    }
  }
}
