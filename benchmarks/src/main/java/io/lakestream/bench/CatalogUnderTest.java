package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LocalFileIO;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.ResourcePaths;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ConfigResponseParser;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.LoadTableResponseParser;
import org.apache.iceberg.types.Types;

/**
 * One REST catalog server under test, seen through Iceberg's Java client ({@link RESTCatalog} with
 * Lakestream's {@link LocalFileIO} for the files the client writes) and through raw HTTP for the
 * loadTable requests the benchmark times.
 *
 * <p>The client does not send metrics reports to the server ({@code
 * rest-metrics-reporting-enabled=false}), so a commit is the catalog's work only.
 */
final class CatalogUnderTest implements AutoCloseable {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));
  private static final MetricsReporter NO_REPORTS = report -> {};

  private final String name;
  private final ChildProcess server;
  private final URI base;
  private final RESTCatalog catalog;
  private final ResourcePaths paths;

  private CatalogUnderTest(
      String name, ChildProcess server, URI base, RESTCatalog catalog, ResourcePaths paths) {
    this.name = requireNonNull(name, "name is null");
    this.server = requireNonNull(server, "server is null");
    this.base = requireNonNull(base, "base is null");
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.paths = requireNonNull(paths, "paths is null");
  }

  /**
   * Connects Iceberg's client to {@code server}, which answers at {@code base}, and learns its URL
   * prefix.
   */
  static CatalogUnderTest connect(String name, ChildProcess server, URI base, HttpClient http)
      throws IOException, InterruptedException {
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.URI, base.toString());
    properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    properties.put(RESTCatalogProperties.METRICS_REPORTING_ENABLED, "false");
    HttpResponse<String> config = get(http, base.resolve("/v1/config"));
    if (config.statusCode() != 200) {
      throw new IllegalStateException(
          name + " answered GET /v1/config with " + config.statusCode() + ": " + config.body());
    }
    ConfigResponse response = ConfigResponseParser.fromJson(config.body());
    ResourcePaths paths = ResourcePaths.forCatalogProperties(response.merge(properties));
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(name, properties);
    return new CatalogUnderTest(name, server, base, catalog, paths);
  }

  String name() {
    return name;
  }

  /** CPU time the server process has used so far. */
  Duration serverCpuTime() {
    return server.cpuTime();
  }

  void createNamespace(Namespace namespace) {
    catalog.createNamespace(namespace);
  }

  /** Creates an unpartitioned table of two columns with {@code properties}. */
  void createTable(TableIdentifier table, Map<String, String> properties) {
    catalog
        .buildTable(table, SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperties(new HashMap<>(properties))
        .create();
  }

  /** Commits {@code count} fast appends of one fake data file each, one after the other. */
  void appendSequentially(TableIdentifier table, int count) {
    Table writable = loadTable(table, NO_REPORTS);
    for (int i = 0; i < count; i++) {
      writable
          .newFastAppend()
          .appendFile(
              DataFiles.builder(writable.spec())
                  .withPath(writable.location() + "/data/setup-" + i + ".parquet")
                  .withFileSizeInBytes(4096)
                  .withRecordCount(100)
                  .withFormat(FileFormat.PARQUET)
                  .build())
          .commit();
    }
  }

  Table loadTable(TableIdentifier table) {
    return loadTable(table, NO_REPORTS);
  }

  /**
   * Loads {@code table} so that its commits report to {@code reporter}, and only to it: the client
   * would otherwise log every commit report.
   */
  Table loadTable(TableIdentifier table, MetricsReporter reporter) {
    Table loaded = catalog.loadTable(table);
    return new BaseTable(((HasTableOperations) loaded).operations(), loaded.name(), reporter);
  }

  /** The URI of the loadTable request for {@code table}, with the server's prefix if it has one. */
  URI loadTableUri(TableIdentifier table) {
    return base.resolve("/" + paths.table(table));
  }

  /**
   * Sends one loadTable request over raw HTTP and checks the answer: 200 and metadata with {@code
   * snapshots} snapshots. Returns the size of the response body in bytes.
   */
  int checkLoadTable(HttpClient http, TableIdentifier table, int snapshots)
      throws IOException, InterruptedException {
    HttpResponse<String> answer = get(http, loadTableUri(table));
    if (answer.statusCode() != 200) {
      throw new IllegalStateException(
          name + " answered loadTable of " + table + " with " + answer.statusCode());
    }
    LoadTableResponse response = LoadTableResponseParser.fromJson(answer.body());
    int found = response.tableMetadata().snapshots().size();
    if (found != snapshots) {
      throw new IllegalStateException(
          name + " loadTable of " + table + " has " + found + " snapshots, not " + snapshots);
    }
    return answer.body().getBytes(UTF_8).length;
  }

  @Override
  public void close() throws IOException {
    catalog.close();
  }

  private static HttpResponse<String> get(HttpClient http, URI uri)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri).GET().timeout(REQUEST_TIMEOUT).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
