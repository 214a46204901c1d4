package io.lakestream.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.EmbeddedLakestream;
import io.lakestream.testing.S3ProxyProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A second warehouse on real S3-compatible storage: the server writes metadata there through
 * Iceberg's S3FileIO, and a client that holds no storage credentials of its own and asks for vended
 * credentials writes manifests through requests the catalog signs (remote signing; the server's
 * keys are not handed out without {@code s3.vend-static-credentials}).
 */
class S3WarehouseIT {
  private static final String BUCKET = "lakehouse";

  @TempDir static Path temp;
  private static S3ProxyProcess s3;
  private static S3Client s3Client;
  private static LakestreamServer server;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyProcess.start(temp.resolve("s3"), Duration.ofSeconds(60));
    s3Client = s3.client();
    s3Client.createBucket(request -> request.bucket(BUCKET));
    server =
        EmbeddedLakestream.startServer(
            temp.resolve("data"), s3.warehouseSettings("s3://" + BUCKET + "/warehouse"));
    base = "http://127.0.0.1:" + server.httpPort();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (s3Client != null) {
      s3Client.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void tablesLiveInObjectStorageAndClientsWriteThroughRemoteSigning() throws Exception {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(
        "lake",
        new HashMap<>(
            Map.of(
                "uri", base,
                "warehouse", "lake",
                "io-impl", "org.apache.iceberg.aws.s3.S3FileIO",
                "client.region", "us-east-1",
                "header.X-Iceberg-Access-Delegation", "vended-credentials")));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    catalog.createNamespace(Namespace.of("events"), new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of("events", "clicks");
    Table table = catalog.createTable(identifier, schema);
    assertThat(table.location()).isEqualTo("s3://" + BUCKET + "/warehouse/events/clicks");

    table
        .newAppend()
        .appendFile(
            DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/a.parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(3)
                .withFormat(FileFormat.PARQUET)
                .build())
        .commit();

    Table loaded = catalog.loadTable(identifier);
    assertThat(loaded.currentSnapshot().addedDataFiles(loaded.io())).hasSize(1);
    List<String> keys = objectKeys("warehouse/events/clicks/metadata/");
    assertThat(keys).anyMatch(key -> key.endsWith(".metadata.json"));
    assertThat(keys).anyMatch(key -> key.endsWith(".avro"));

    HttpClient http = HttpClient.newHttpClient();
    String path = base + "/v1/lake/namespaces/events/tables/clicks";
    String plain =
        http.send(
                HttpRequest.newBuilder(URI.create(path)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(plain).doesNotContain(S3ProxyProcess.SECRET_KEY);
    // A commit answered with vended credentials is named as loadTable names that content, not as
    // the plain body (which shares its metadata location).
    HttpResponse<String> committed =
        http.send(
            HttpRequest.newBuilder(URI.create(path))
                .header("X-Iceberg-Access-Delegation", "vended-credentials")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\","
                            + "\"updates\":{\"vended\":\"yes\"}}]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(committed.statusCode()).as(committed.body()).isEqualTo(200);
    assertThat(committed.body())
        .doesNotContain(S3ProxyProcess.SECRET_KEY)
        .contains("\"s3.remote-signing-enabled\":\"true\"");
    String vendedETag =
        http.send(
                HttpRequest.newBuilder(URI.create(path))
                    .header("X-Iceberg-Access-Delegation", "vended-credentials")
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .headers()
            .firstValue("ETag")
            .orElseThrow();
    String plainETag =
        http.send(
                HttpRequest.newBuilder(URI.create(path)).build(),
                HttpResponse.BodyHandlers.ofString())
            .headers()
            .firstValue("ETag")
            .orElseThrow();
    assertThat(committed.headers().firstValue("ETag")).contains(vendedETag);
    assertThat(vendedETag).isNotEqualTo(plainETag);
    String credentials =
        http.send(
                HttpRequest.newBuilder(URI.create(path + "/credentials")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(credentials).doesNotContain(S3ProxyProcess.SECRET_KEY);

    assertThat(catalog.dropTable(identifier, true)).isTrue();
    assertThat(objectKeys("warehouse/events/clicks/metadata/"))
        .noneMatch(key -> key.endsWith(".metadata.json"));
    catalog.close();
  }

  @Test
  void theDefaultWarehouseStaysLocal() throws Exception {
    HttpResponse<String> config =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/v1/config?warehouse=lake")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(config.body()).contains("\"prefix\":\"lake\"");
    HttpResponse<String> defaults =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/v1/config")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(defaults.body()).contains("\"prefix\":\"default\"");
  }

  private static List<String> objectKeys(String prefix) {
    return s3Client
        .listObjectsV2(request -> request.bucket(BUCKET).prefix(prefix))
        .contents()
        .stream()
        .map(S3Object::key)
        .toList();
  }
}
