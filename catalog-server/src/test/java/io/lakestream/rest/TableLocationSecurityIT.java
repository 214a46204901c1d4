package io.lakestream.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.testing.CatalogTokens;
import io.lakestream.testing.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A principal allowed to write namespace {@code a} only tries to reach table {@code b.t}'s files
 * and places outside the warehouse through table and namespace locations and register, against a
 * real server process with OAuth2 and grants per namespace. Every attempt is refused with a 4xx
 * that names the location, nothing is written where it pointed, and {@code b.t}'s files survive the
 * orphan sweep, which deletes only what {@code b.t}'s tiering recorded and never committed.
 */
class TableLocationSecurityIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final String SCHEMA =
      "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
          + "{\"id\":1,\"name\":\"id\",\"type\":\"long\",\"required\":true},"
          + "{\"id\":2,\"name\":\"name\",\"type\":\"string\",\"required\":false}]}";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROWS = 300;

  @TempDir static Path temp;
  private static Path warehouse;
  private static ServerProcess server;
  private static String base;
  private static String ownerToken;
  private static String intruderToken;
  private static RESTCatalog owner;
  private static RESTCatalog intruder;
  private static Path data;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    data = temp.resolve("data");
    Files.createDirectories(data);
    data = data.toRealPath();
    warehouse = data.resolve("warehouse");
    int httpPort = ServerProcess.freePort();
    int rpcPort = ServerProcess.freePort();
    server =
        ServerProcess.launch(
            temp.resolve("logs"),
            httpPort,
            List.of(
                "--data-dir", data.toString(),
                "--http-port", Integer.toString(httpPort),
                "--rpc-port", Integer.toString(rpcPort),
                "--flight-port", Integer.toString(ServerProcess.freePort()),
                "--auth-mode", "oauth2",
                "--auth-clients", "owner:owner-secret,intruder:intruder-secret",
                "--auth-token-signing-key", "location-test-signing-key-0123456789abcdef",
                "--auth-grants", "owner:admin:*,intruder:write:default.a",
                "--tiering-discovery-interval", "1s",
                "--tiering-orphan-file-age", "1s"));
    server.awaitReady(TIMEOUT);
    base = server.baseUri();
    ownerToken = CatalogTokens.clientCredentials(base, "owner", "owner-secret");
    intruderToken = CatalogTokens.clientCredentials(base, "intruder", "intruder-secret");
    owner = new RESTCatalog();
    owner.initialize(
        "owner",
        new HashMap<>(
            Map.of("uri", base, "token", ownerToken, "io-impl", LocalFileIO.class.getName())));
    intruder = new RESTCatalog();
    intruder.initialize(
        "intruder",
        new HashMap<>(
            Map.of("uri", base, "token", intruderToken, "io-impl", LocalFileIO.class.getName())));

    assertThat(send("POST", "/v1/namespaces", "{\"namespace\":[\"a\"]}", ownerToken).status())
        .isEqualTo(200);
    assertThat(send("POST", "/v1/namespaces", "{\"namespace\":[\"b\"]}", ownerToken).status())
        .isEqualTo(200);
    Answer created =
        send(
            "POST",
            "/v1/namespaces/b/tables",
            "{\"name\":\"t\",\"schema\":"
                + SCHEMA
                + ",\"properties\":{\"lakestream.kind\":\"log\",\"lakestream.buckets\":\"1\","
                + "\"lakestream.tiering.interval\":\"1s\"}}",
            ownerToken);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    try (Connection connection = Connection.open("127.0.0.1", rpcPort, ownerToken);
        AppendWriter writer = connection.table(TablePath.of("b.t")).newAppendWriter()) {
      for (long id = 0; id < ROWS; id++) {
        writer.append(id, "row " + id);
      }
      writer.flush();
    }
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (rowsOfBt() < ROWS) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("b.t was not tiered within " + TIMEOUT);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (owner != null) {
      owner.close();
    }
    if (intruder != null) {
      intruder.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private record Answer(int status, String body) {}

  private static Answer send(String method, String path, String body, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), response.body());
  }

  private static String quoted(String text) throws IOException {
    return JSON.writeValueAsString(text);
  }

  /** The intruder's create of table {@code a.<name>} at {@code location}. */
  private static Answer intruderCreates(String name, String location, boolean stage)
      throws IOException, InterruptedException {
    return send(
        "POST",
        "/v1/namespaces/a/tables",
        "{\"name\":\""
            + name
            + "\",\"location\":"
            + quoted(location)
            + ",\"stage-create\":"
            + stage
            + ",\"schema\":"
            + SCHEMA
            + ",\"properties\":{\"lakestream.kind\":\"log\",\"lakestream.buckets\":\"1\"}}",
        intruderToken);
  }

  /**
   * A 400 or 403 with an Iceberg error naming the location (as Iceberg keeps a table location:
   * without trailing slashes).
   */
  private static void assertRefused(Answer answer, String location) throws IOException {
    assertThat(answer.status()).as(answer.body()).isBetween(400, 403);
    JsonNode error = JSON.readTree(answer.body()).path("error");
    assertThat(error.path("code").asInt()).isEqualTo(answer.status());
    assertThat(error.path("message").asText())
        .as(location)
        .contains(location.replaceAll("/+$", ""));
  }

  private static long rowsOfBt() {
    Table table = owner.loadTable(TableIdentifier.of("b", "t"));
    if (table.currentSnapshot() == null) {
      return 0;
    }
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record ignored : records) {
        rows++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private static List<Path> committedFilesOfBt() {
    Table table = owner.loadTable(TableIdentifier.of("b", "t"));
    List<Path> files = new ArrayList<>();
    for (var snapshot : table.snapshots()) {
      for (DataFile file : snapshot.addedDataFiles(table.io())) {
        files.add(LocalFileIO.toPath(file.location()));
      }
    }
    return files;
  }

  private static void age(Path file) throws IOException {
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(Duration.ofMinutes(5))));
  }

  @Test
  void aTableInAnotherTablesDirectoryIsRefusedAndThatTablesFilesSurviveTheSweep() throws Exception {
    Path bt = warehouse.resolve("b").resolve("t");
    List<String> spellings =
        List.of(
            "file://" + bt,
            "file:" + bt + "/",
            bt.toString(),
            "local://" + bt,
            "file://" + bt.resolve("data"),
            "file://" + warehouse.resolve("b"),
            "file://" + warehouse + "/a/../b/t",
            "file:" + warehouse + "//b//t",
            "file://" + warehouse + "/a/%2E%2E/b/t");
    for (String location : spellings) {
      assertRefused(intruderCreates("evil", location, false), location);
      assertRefused(intruderCreates("evil", location, true), location);
    }
    String dataPath = "file://" + bt.resolve("data");
    Answer viaProperty =
        send(
            "POST",
            "/v1/namespaces/a/tables",
            "{\"name\":\"evil\",\"schema\":"
                + SCHEMA
                + ",\"properties\":{\"write.data.path\":"
                + quoted(dataPath)
                + "}}",
            intruderToken);
    assertRefused(viaProperty, dataPath);
    assertThat(send("GET", "/v1/namespaces/a/tables/evil", null, intruderToken).status())
        .isEqualTo(404);

    // b.t's tiering recorded a round that died; the sweep deletes that round's file, and nothing
    // else: not the committed files, not a file with tiering's name that b.t never recorded.
    List<Path> committed = committedFilesOfBt();
    assertThat(committed).isNotEmpty();
    Table table = owner.loadTable(TableIdentifier.of("b", "t"));
    String operationId = "tiering-" + UUID.randomUUID();
    Path records = bt.resolve("lakestream-tiering").resolve(table.uuid().toString());
    Files.createDirectories(records);
    Path record = records.resolve(operationId);
    Files.writeString(record, "file:" + bt.resolve("data"));
    Path abandoned = bt.resolve("data").resolve("00000-5-" + operationId + "-00001.parquet");
    Path planted =
        bt.resolve("data").resolve("00000-7-tiering-" + UUID.randomUUID() + "-00001.parquet");
    Files.write(abandoned, new byte[] {1});
    Files.write(planted, new byte[] {2});
    for (Path file : List.of(record, abandoned, planted)) {
      age(file);
    }
    for (Path file : committed) {
      age(file);
    }
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (Files.exists(abandoned) || Files.exists(record)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("The sweep did not delete b.t's recorded orphan in " + TIMEOUT);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    assertThat(planted).exists();
    assertThat(committed).allSatisfy(file -> assertThat(file).exists());
    assertThat(rowsOfBt()).isEqualTo(ROWS);
  }

  @Test
  void locationsOutsideTheWarehouseAreRefusedAndNothingIsWrittenThere() throws Exception {
    Path outside = temp.resolve("outside-" + UUID.randomUUID());
    boolean rootMetadataExisted = Files.exists(Path.of("/metadata"));
    List<String> locations =
        List.of(
            outside.toString(),
            "file:" + outside,
            "file://" + outside,
            "local://" + outside,
            "file://" + warehouse + "/a/../../" + outside.getFileName(),
            "file://" + warehouse + "/../" + outside.getFileName(),
            "file:/",
            "file:///",
            "/",
            "file://otherhost" + outside,
            "s3://bucket/a/t",
            "hdfs://namenode/a/t");
    for (String location : locations) {
      assertRefused(intruderCreates("out", location, false), location);
      assertRefused(intruderCreates("out", location, true), location);
    }
    assertThat(outside).doesNotExist();
    assertThat(temp.resolve(outside.getFileName())).doesNotExist();
    assertThat(warehouse.getParent().resolve(outside.getFileName())).doesNotExist();
    assertThat(Files.exists(Path.of("/metadata"))).isEqualTo(rootMetadataExisted);

    // Namespace locations: on create and as a property update.
    String location = "file://" + outside;
    assertRefused(
        send(
            "POST",
            "/v1/namespaces",
            "{\"namespace\":[\"elsewhere\"],\"properties\":{\"location\":"
                + quoted(location)
                + "}}",
            ownerToken),
        location);
    assertRefused(
        send(
            "POST",
            "/v1/namespaces/a/properties",
            "{\"updates\":{\"location\":" + quoted(location) + "},\"removals\":[]}",
            intruderToken),
        location);
    String inTable = "file://" + warehouse.resolve("b").resolve("t").resolve("data");
    assertRefused(
        send(
            "POST",
            "/v1/namespaces/a/properties",
            "{\"updates\":{\"location\":" + quoted(inTable) + "},\"removals\":[]}",
            intruderToken),
        inTable);
    // A view's location too.
    String view =
        "{\"name\":\"v\",\"location\":"
            + quoted(location)
            + ",\"schema\":"
            + SCHEMA
            + ",\"view-version\":{\"version-id\":1,\"timestamp-ms\":1,\"schema-id\":0,"
            + "\"summary\":{},\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\","
            + "\"dialect\":\"trino\"}],\"default-namespace\":[\"a\"]},\"properties\":{}}";
    assertRefused(send("POST", "/v1/namespaces/a/views", view, intruderToken), location);
    assertThat(outside).doesNotExist();
  }

  @Test
  void aTableCannotBeMovedOntoAnotherTablesFiles() throws Exception {
    Answer created =
        send(
            "POST",
            "/v1/namespaces/a/tables",
            "{\"name\":\"mine\",\"schema\":" + SCHEMA + "}",
            intruderToken);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String target = "file://" + warehouse.resolve("b").resolve("t");
    assertRefused(
        send(
            "POST",
            "/v1/namespaces/a/tables/mine",
            "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":"
                + quoted(target)
                + "}]}",
            intruderToken),
        target);
    String dataPath = target + "/data";
    assertRefused(
        send(
            "POST",
            "/v1/namespaces/a/tables/mine",
            "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":"
                + "{\"write.data.path\":"
                + quoted(dataPath)
                + "}}]}",
            intruderToken),
        dataPath);
    assertRefused(
        send(
            "POST",
            "/v1/transactions/commit",
            "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"a\"],\"name\":\"mine\"},"
                + "\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":"
                + quoted(target)
                + "}]}]}",
            intruderToken),
        target);
    JsonNode mine =
        JSON.readTree(send("GET", "/v1/namespaces/a/tables/mine", null, intruderToken).body());
    assertThat(LocalFileIO.toPath(mine.path("metadata").path("location").asText()))
        .isEqualTo(warehouse.resolve("a").resolve("mine"));
  }

  @Test
  void registerTakesOnlyMetadataOfTheTargetNamespace() throws Exception {
    String stolen = owner.loadTable(TableIdentifier.of("b", "t")).location() + "/metadata";
    String metadataFile;
    try (Stream<Path> files = Files.list(LocalFileIO.toPath(stolen))) {
      metadataFile =
          "file:"
              + files
                  .filter(file -> file.toString().endsWith(".metadata.json"))
                  .findFirst()
                  .orElseThrow();
    }
    List<String> spellings =
        List.of(
            metadataFile,
            "local://" + LocalFileIO.toPath(metadataFile),
            "file://" + warehouse + "/a/../b/t/metadata/" + Path.of(metadataFile).getFileName());
    for (String location : spellings) {
      assertRefused(
          send(
              "POST",
              "/v1/namespaces/a/register",
              "{\"name\":\"stolen\",\"metadata-location\":" + quoted(location) + "}",
              intruderToken),
          location);
    }
    assertThat(send("GET", "/v1/namespaces/a/tables/stolen", null, intruderToken).status())
        .isEqualTo(404);

    // A table's own metadata in its namespace registers, also spelled local: as Trino does.
    Answer created =
        send(
            "POST",
            "/v1/namespaces/a/tables",
            "{\"name\":\"own\",\"schema\":" + SCHEMA + "}",
            intruderToken);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String own = JSON.readTree(created.body()).path("metadata-location").asText();
    assertThat(send("DELETE", "/v1/namespaces/a/tables/own", null, intruderToken).status())
        .isEqualTo(204);
    Answer registered =
        send(
            "POST",
            "/v1/namespaces/a/register",
            "{\"name\":\"own\",\"metadata-location\":"
                + quoted("local://" + LocalFileIO.toPath(own))
                + "}",
            intruderToken);
    assertThat(registered.status()).as(registered.body()).isEqualTo(200);
    assertThat(send("GET", "/v1/namespaces/a/tables/own", null, intruderToken).status())
        .isEqualTo(200);
  }

  @Test
  void namespacesHandOutTheirDirectoryAsDefaultLocation() throws Exception {
    JsonNode namespace = JSON.readTree(send("GET", "/v1/namespaces/a", null, ownerToken).body());
    // file:/x and file:///x spell the same directory.
    assertThat(Path.of(java.net.URI.create(namespace.path("properties").path("location").asText())))
        .isEqualTo(warehouse.resolve("a"));
  }

  /**
   * The intruder commits snapshots to its own table {@code a.thief} whose manifests list {@code
   * b.t}'s data files, as an Iceberg client writes them (appends, a fast append of {@code b.t}'s
   * own manifest, a row delta with a delete file in {@code b.t}'s directory): each commit is
   * refused with a 403 naming the file and {@code b.t}, so no read of {@code a.thief} reaches
   * {@code b.t}'s rows. A snapshot of files in the table's own directory commits.
   */
  @Test
  void aSnapshotListingAnotherTablesFilesIsRefused() {
    Table bt = owner.loadTable(TableIdentifier.of("b", "t"));
    List<DataFile> stolen = new ArrayList<>();
    for (var snapshot : bt.snapshots()) {
      snapshot.addedDataFiles(bt.io()).forEach(stolen::add);
    }
    assertThat(stolen).isNotEmpty();
    Schema schema = bt.schema();
    Table thief = intruder.createTable(TableIdentifier.of("a", "thief"), schema);

    AppendFiles append = thief.newAppend();
    stolen.forEach(append::appendFile);
    assertThatThrownBy(append::commit)
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining(stolen.get(0).location())
        .hasMessageContaining("b.t");

    // A manifest written by hand into a.thief's own directory, listing b.t's files.
    ManifestFile manifest;
    ManifestWriter<DataFile> writer =
        ManifestFiles.write(
            thief.spec(), thief.io().newOutputFile(thief.location() + "/metadata/crafted-m0.avro"));
    try (writer) {
      stolen.forEach(writer::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    manifest = writer.toManifestFile();
    thief.refresh();
    assertThatThrownBy(() -> thief.newFastAppend().appendManifest(manifest).commit())
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining(stolen.get(0).location())
        .hasMessageContaining("b.t");

    DeleteFile deletes =
        FileMetadata.deleteFileBuilder(thief.spec())
            .ofPositionDeletes()
            .withPath(stolen.get(0).location())
            .withFileSizeInBytes(stolen.get(0).fileSizeInBytes())
            .withRecordCount(1)
            .withFormat(FileFormat.PARQUET)
            .build();
    thief.refresh();
    assertThatThrownBy(() -> thief.newRowDelta().addDeletes(deletes).commit())
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining(stolen.get(0).location());

    thief.refresh();
    assertThat(thief.currentSnapshot()).isNull();
    String own = thief.location() + "/data/own-00001.parquet";
    thief
        .newAppend()
        .appendFile(
            DataFiles.builder(thief.spec())
                .withPath(own)
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .withFormat(FileFormat.PARQUET)
                .build())
        .commit();
    thief.refresh();
    List<String> files = new ArrayList<>();
    thief.currentSnapshot().addedDataFiles(thief.io()).forEach(file -> files.add(file.location()));
    assertThat(files).containsExactly(own);
    assertThat(rowsOfBt()).isEqualTo(ROWS);
  }

  /**
   * {@code b.t}'s metadata with its location changed to one in namespace {@code a}, written into
   * {@code a}'s directory: its snapshots still name {@code b.t}'s manifest lists.
   */
  private static String craftedCopyOfBt(String name) throws IOException {
    Table bt = owner.loadTable(TableIdentifier.of("b", "t"));
    String btMetadata =
        ((org.apache.iceberg.HasTableOperations) bt).operations().current().metadataFileLocation();
    LocalFileIO io = new LocalFileIO();
    TableMetadata metadata = TableMetadataParser.read(io, btMetadata);
    Path directory = warehouse.resolve("a").resolve(name);
    TableMetadata crafted =
        TableMetadata.buildFrom(metadata).setLocation("file:" + directory).build();
    Path file =
        directory.resolve("metadata").resolve("00009-" + UUID.randomUUID() + ".metadata.json");
    Files.createDirectories(file.getParent());
    TableMetadataParser.write(crafted, io.newOutputFile("file:" + file));
    return "file:" + file;
  }

  @Test
  void registerOfMetadataListingAnotherTablesFilesIsRefused() throws Exception {
    String crafted = craftedCopyOfBt("copied");
    Answer answer =
        send(
            "POST",
            "/v1/namespaces/a/register",
            "{\"name\":\"copied\",\"metadata-location\":" + quoted(crafted) + "}",
            intruderToken);
    assertThat(answer.status()).as(answer.body()).isEqualTo(403);
    assertThat(JSON.readTree(answer.body()).path("error").path("message").asText())
        .contains(warehouse.resolve("b").resolve("t").toString())
        .contains("b.t");
    assertThat(send("GET", "/v1/namespaces/a/tables/copied", null, intruderToken).status())
        .isEqualTo(404);
  }

  /**
   * A table whose metadata lists {@code b.t}'s files (as a table committed before the commit-time
   * checks could, simulated by pointing the catalog at crafted metadata) is dropped with purge:
   * only its own files go; {@code b.t}'s data files, manifests and metadata stay and it still
   * reads.
   */
  @Test
  void purgeDeletesOnlyTheTablesOwnFiles() throws Exception {
    Answer created =
        send(
            "POST",
            "/v1/namespaces/a/tables",
            "{\"name\":\"purged\",\"schema\":" + SCHEMA + "}",
            intruderToken);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String crafted = craftedCopyOfBt("purged");
    try (java.sql.Connection database =
            java.sql.DriverManager.getConnection("jdbc:sqlite:" + data.resolve("catalog.db"));
        java.sql.Statement busy = database.createStatement();
        java.sql.PreparedStatement update =
            database.prepareStatement(
                "UPDATE lakestream_entities SET metadata_location = ?"
                    + " WHERE namespace = 'a' AND name = 'purged'")) {
      busy.execute("PRAGMA busy_timeout = 10000");
      update.setString(1, crafted);
      assertThat(update.executeUpdate()).isEqualTo(1);
    }
    List<Path> committed = committedFilesOfBt();
    assertThat(committed).isNotEmpty();

    Answer dropped =
        send("DELETE", "/v1/namespaces/a/tables/purged?purgeRequested=true", null, intruderToken);
    assertThat(dropped.status()).as(dropped.body()).isEqualTo(204);
    assertThat(LocalFileIO.toPath(crafted)).doesNotExist();
    assertThat(committed).allSatisfy(file -> assertThat(file).exists());
    assertThat(rowsOfBt()).isEqualTo(ROWS);
  }
}
