package io.lakestream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.CatalogTokens;
import io.lakestream.testing.EmbeddedLakestream;
import io.lakestream.testing.S3ProxyProcess;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Remote signing on real S3-compatible storage (issue 30, "vended credentials scoped to the table's
 * own location"): clients that hold no storage keys read and write a table's files through S3
 * requests the server signs, only inside that table's location and only as far as their grants
 * reach; the server's keys appear in no table answer unless {@code s3.vend-static-credentials} is
 * set.
 */
class S3RemoteSigningIT {
  private static final String BUCKET = "signed";
  private static final String SIGN_PATH = "/v1/lake/namespaces/events/tables/clicks/sign";

  @TempDir static Path temp;
  private static S3ProxyProcess s3;
  private static LakestreamServer server;
  private static LakestreamServer vending;
  private static String base;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyProcess.start(temp.resolve("s3"), Duration.ofSeconds(60));
    try (S3Client admin = s3.client()) {
      admin.createBucket(request -> request.bucket(BUCKET));
    }
    server =
        startServer(
            "signing",
            Map.of(
                "auth.mode", "oauth2",
                "auth.clients", "writer:writer-secret,reader:reader-secret",
                "auth.token-signing-key", "test-signing-key-0123456789abcdef-0123",
                "auth.grants", "writer:write:lake,reader:read:lake"));
    base = "http://127.0.0.1:" + server.httpPort();
    vending = startServer("vending", Map.of("s3.vend-static-credentials", "true"));
  }

  /** A server whose warehouse {@code lake} is {@code s3://BUCKET/name}. */
  private static LakestreamServer startServer(String name, Map<String, String> extra) {
    Map<String, String> settings =
        new HashMap<>(s3.warehouseSettings("s3://" + BUCKET + "/" + name));
    settings.putAll(extra);
    return EmbeddedLakestream.startServer(temp.resolve(name), settings);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (vending != null) {
      vending.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  /**
   * A client with no storage keys creates a table, writes a data file, commits it and reads it
   * back, every S3 request signed by the server. Fails before remote signing: the client then got
   * the server's keys, or (without them) could not reach the bucket at all.
   */
  @Test
  void aClientWithoutKeysWritesAndReadsThroughRemoteSigning() throws Exception {
    ensureTables();
    try (RESTCatalog catalog = connect("writer:writer-secret", "remote-signing")) {
      Table table = catalog.loadTable(TableIdentifier.of("events", "clicks"));
      assertThat(table.location()).isEqualTo("s3://" + BUCKET + "/signing/events/clicks");

      byte[] content = "rows of clicks".getBytes(StandardCharsets.UTF_8);
      OutputFile output = table.io().newOutputFile(table.location() + "/data/a.parquet");
      try (OutputStream stream = output.createOrOverwrite()) {
        stream.write(content);
      }
      DataFile file =
          DataFiles.builder(PartitionSpec.unpartitioned())
              .withPath(output.location())
              .withFileSizeInBytes(content.length)
              .withRecordCount(3)
              .withFormat(FileFormat.PARQUET)
              .build();
      table.newAppend().appendFile(file).commit();

      Table loaded = catalog.loadTable(TableIdentifier.of("events", "clicks"));
      List<DataFile> files =
          List.copyOf(toList(loaded.currentSnapshot().addedDataFiles(loaded.io())));
      assertThat(files).hasSize(1);
      try (InputStream stream = loaded.io().newInputFile(files.get(0).location()).newStream()) {
        assertThat(stream.readAllBytes()).isEqualTo(content);
      }
      // The same client's FileIO cannot reach the other table's files: the server will not sign.
      Table other = catalog.loadTable(TableIdentifier.of("events", "other"));
      assertThatThrownBy(
              () ->
                  loaded.io().newInputFile(other.location() + "/metadata/x.metadata.json").exists())
          .hasMessageContaining("outside the table's locations");
    }
  }

  /**
   * The sign route signs only the table's own objects. Fails before remote signing: the route did
   * not exist (404), while the vended keys reached every object of the bucket.
   */
  @Test
  void theSignRouteRefusesEverythingOutsideTheTable() throws Exception {
    ensureTables();
    String writer = CatalogTokens.clientCredentials(base, "writer", "writer-secret");
    String own = s3.endpoint() + "/" + BUCKET + "/signing/events/clicks/data/b.parquet";
    HttpResponse<String> signed = sign(writer, "PUT", own, "{}");
    assertThat(signed.statusCode()).as(signed.body()).isEqualTo(200);
    assertThat(signed.body())
        .contains("AWS4-HMAC-SHA256")
        .contains("Credential=" + S3ProxyProcess.ACCESS_KEY);
    assertThat(signed.body()).doesNotContain(S3ProxyProcess.SECRET_KEY);

    List<String> foreign =
        List.of(
            s3.endpoint() + "/" + BUCKET + "/signing/events/other/data/b.parquet",
            s3.endpoint() + "/" + BUCKET + "/signing/events/clicks2/data/b.parquet",
            s3.endpoint() + "/" + BUCKET + "/signing/events/clicks/../other/metadata/x.json",
            s3.endpoint() + "/" + BUCKET + "?list-type=2&prefix=signing/",
            s3.endpoint() + "/" + BUCKET + "?list-type=2&prefix=signing/events/clicks",
            s3.endpoint() + "/" + BUCKET,
            s3.endpoint() + "/another-bucket/signing/events/clicks/data/b.parquet",
            s3.endpoint() + "/" + BUCKET + "/signing/events/clicks/data/b.parquet?acl",
            "http://elsewhere.test:9000/" + BUCKET + "/signing/events/clicks/data/b.parquet");
    for (String uri : foreign) {
      for (String method : List.of("GET", "PUT")) {
        HttpResponse<String> refused = sign(writer, method, uri, "{}");
        assertThat(refused.statusCode())
            .as("%s %s: %s", method, uri, refused.body())
            .isEqualTo(403);
        assertThat(refused.body()).contains("ForbiddenException").doesNotContain("AWS4-HMAC");
      }
    }
    HttpResponse<String> copy =
        sign(
            writer,
            "PUT",
            own,
            "{\"x-amz-copy-source\":[\"/" + BUCKET + "/signing/events/other/x\"]}");
    assertThat(copy.statusCode()).as(copy.body()).isEqualTo(403);

    HttpResponse<String> listing =
        sign(
            writer,
            "GET",
            s3.endpoint() + "/" + BUCKET + "?list-type=2&prefix=signing/events/clicks/",
            "{}");
    assertThat(listing.statusCode()).as(listing.body()).isEqualTo(200);

    for (String malformed :
        List.of(
            "{}",
            "not json",
            "{\"region\":\"us-east-1\",\"method\":\"FETCH\",\"uri\":\""
                + own
                + "\",\"headers\":{}}",
            "{\"region\":\"us-east-1\",\"method\":\"GET\",\"uri\":\"relative/key\",\"headers\":{}}",
            "{\"region\":\"us-east-1\",\"method\":\"GET\",\"uri\":\""
                + own
                + "\",\"headers\":{},"
                + "\"provider\":\"gcs\"}")) {
      HttpResponse<String> bad = send(writer, SIGN_PATH, malformed);
      assertThat(bad.statusCode()).as("%s: %s", malformed, bad.body()).isEqualTo(400);
    }
  }

  /** Read lets a principal get reads signed, never writes. Fails before: no sign route at all. */
  @Test
  void aReaderGetsReadsSignedButNoWrites() throws Exception {
    ensureTables();
    String reader = CatalogTokens.clientCredentials(base, "reader", "reader-secret");
    String own = s3.endpoint() + "/" + BUCKET + "/signing/events/clicks/data/b.parquet";
    assertThat(sign(reader, "GET", own, "{}").statusCode()).isEqualTo(200);
    assertThat(sign(reader, "HEAD", own, "{}").statusCode()).isEqualTo(200);
    for (String method : List.of("PUT", "POST", "DELETE")) {
      HttpResponse<String> refused = sign(reader, method, own, "{}");
      assertThat(refused.statusCode()).as("%s: %s", method, refused.body()).isEqualTo(403);
      assertThat(refused.body()).contains("reader");
    }
    assertThat(send(null, SIGN_PATH, signRequest("GET", own, "{}")).statusCode()).isEqualTo(401);
  }

  /**
   * No table answer carries the server's keys, whatever the client asks, unless the operator opted
   * in. Fails before: vended-credentials answers (and the credentials route) held the secret key.
   */
  @Test
  void theStaticKeysAreNeverHandedOutWithoutOptIn() throws Exception {
    ensureTables();
    String writer = CatalogTokens.clientCredentials(base, "writer", "writer-secret");
    String path = base + "/v1/lake/namespaces/events/tables/clicks";
    for (String delegation :
        new String[] {
          null, "vended-credentials", "remote-signing", "vended-credentials,remote-signing"
        }) {
      HttpRequest.Builder load =
          HttpRequest.newBuilder(URI.create(path)).header("Authorization", "Bearer " + writer);
      if (delegation != null) {
        load.header("X-Iceberg-Access-Delegation", delegation);
      }
      HttpResponse<String> answer = HTTP.send(load.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body())
          .as("loadTable with %s", delegation)
          .doesNotContain(S3ProxyProcess.SECRET_KEY)
          .doesNotContain("s3.access-key-id");
      if (delegation != null) {
        assertThat(answer.body())
            .contains("\"s3.remote-signing-enabled\":\"true\"")
            .contains("\"s3.signer.endpoint\":\"v1/lake/namespaces/events/tables/clicks/sign\"");
      }
    }
    HttpResponse<String> credentials =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(path + "/credentials"))
                .header("Authorization", "Bearer " + writer)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(credentials.statusCode()).isEqualTo(200);
    assertThat(credentials.body()).doesNotContain(S3ProxyProcess.SECRET_KEY);

    // With s3.vend-static-credentials=true a vended-credentials client gets the keys, as before.
    String vendingBase = "http://127.0.0.1:" + vending.httpPort();
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.initialize("vending", clientProperties(vendingBase, null, "vended-credentials"));
      catalog.createNamespace(Namespace.of("events"), new HashMap<>());
      catalog.createTable(
          TableIdentifier.of("events", "clicks"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    }
    String vendingPath = vendingBase + "/v1/lake/namespaces/events/tables/clicks";
    String vended =
        HTTP.send(
                HttpRequest.newBuilder(URI.create(vendingPath))
                    .header("X-Iceberg-Access-Delegation", "vended-credentials")
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(vended).contains(S3ProxyProcess.SECRET_KEY);
    String plain =
        HTTP.send(
                HttpRequest.newBuilder(URI.create(vendingPath)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(plain).doesNotContain(S3ProxyProcess.SECRET_KEY);
  }

  private static synchronized void ensureTables() throws Exception {
    try (RESTCatalog catalog = connect("writer:writer-secret", "remote-signing")) {
      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
      if (!catalog.namespaceExists(Namespace.of("events"))) {
        catalog.createNamespace(Namespace.of("events"), new HashMap<>());
      }
      for (String name : List.of("clicks", "other")) {
        if (!catalog.tableExists(TableIdentifier.of("events", name))) {
          catalog.createTable(TableIdentifier.of("events", name), schema);
        }
      }
    }
  }

  private static RESTCatalog connect(String credential, String delegation) {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("lake", clientProperties(base, credential, delegation));
    return catalog;
  }

  /** A client with no S3 keys of its own: only what the catalog hands it. */
  private static Map<String, String> clientProperties(
      String uri, String credential, String delegation) {
    Map<String, String> properties = new HashMap<>();
    properties.put("uri", uri);
    properties.put("warehouse", "lake");
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    properties.put("header.X-Iceberg-Access-Delegation", delegation);
    if (credential != null) {
      properties.put("credential", credential);
      properties.put("oauth2-server-uri", uri + "/v1/oauth/tokens");
    }
    return properties;
  }

  private static HttpResponse<String> sign(String token, String method, String uri, String headers)
      throws Exception {
    return send(token, SIGN_PATH, signRequest(method, uri, headers));
  }

  private static String signRequest(String method, String uri, String headers) {
    return "{\"region\":\"us-east-1\",\"method\":\""
        + method
        + "\",\"uri\":\""
        + uri
        + "\",\"headers\":"
        + headers
        + ",\"provider\":\"s3\"}";
  }

  private static HttpResponse<String> send(String token, String path, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static <T> List<T> toList(Iterable<T> items) {
    List<T> list = new java.util.ArrayList<>();
    items.forEach(list::add);
    return list;
  }
}
