package io.lakestream.rest;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.LakestreamExtension;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.UpdateRequirements;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.requests.CommitTransactionRequest;
import org.apache.iceberg.rest.requests.CommitTransactionRequestParser;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The table and view lifecycle through Iceberg's own Java {@link RESTCatalog} client against an
 * in-process server, plus the HTTP-level contract (ETags, status codes, error bodies) the client
 * does not show.
 */
class RestCatalogTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "category", Types.StringType.get()));

  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().setting("http.max-request-size", "64kb").build();

  private static LakestreamServer server;
  private static RESTCatalog catalog;
  private static HttpClient http;
  private static String base;

  @BeforeAll
  static void start() {
    server = LAKESTREAM.server();
    base = LAKESTREAM.base();
    catalog = LAKESTREAM.catalog();
    http = HttpClient.newHttpClient();
  }

  @Test
  void tableLifecycle() {
    Namespace namespace = Namespace.of("sales");
    catalog.createNamespace(namespace, new HashMap<>());
    TableIdentifier orders = TableIdentifier.of(namespace, "orders");
    Table table =
        catalog.createTable(
            orders,
            SCHEMA,
            PartitionSpec.builderFor(SCHEMA).identity("category").build(),
            new HashMap<>(Map.of("owner", "finance")));
    assertThat(table.location())
        .startsWith(LAKESTREAM.dataDir().resolve("warehouse").toUri().toString());
    assertThat(catalog.tableExists(orders)).isTrue();
    assertThat(catalog.listTables(namespace)).containsExactly(orders);

    DataFile file = dataFile(table, "category=books/a.parquet", "books");
    table.newAppend().appendFile(file).commit();
    table.updateSchema().addColumn("price", Types.DoubleType.get()).commit();

    Table loaded = catalog.loadTable(orders);
    assertThat(loaded.schema().findField("price")).isNotNull();
    assertThat(loaded.currentSnapshot().addedDataFiles(loaded.io()))
        .extracting(DataFile::location)
        .containsExactly(file.location());
    assertThat(loaded.properties()).containsEntry("owner", "finance");

    assertThatThrownBy(() -> catalog.createTable(orders, SCHEMA))
        .isInstanceOf(AlreadyExistsException.class);
    assertThatThrownBy(() -> catalog.dropNamespace(namespace))
        .isInstanceOf(NamespaceNotEmptyException.class);

    TableIdentifier archived = TableIdentifier.of(Namespace.of("sales"), "orders_2026");
    catalog.renameTable(orders, archived);
    assertThat(catalog.tableExists(orders)).isFalse();
    assertThat(catalog.loadTable(archived).currentSnapshot().snapshotId())
        .isEqualTo(loaded.currentSnapshot().snapshotId());

    String metadataLocation =
        ((org.apache.iceberg.HasTableOperations) catalog.loadTable(archived))
            .operations()
            .current()
            .metadataFileLocation();
    assertThat(catalog.dropTable(archived, false)).isTrue();
    assertThat(Files.exists(LocalFileIO.toPath(metadataLocation))).isTrue();
    Table registered = catalog.registerTable(orders, metadataLocation);
    assertThat(registered.schema().findField("price")).isNotNull();

    assertThat(catalog.dropTable(orders, true)).isTrue();
    assertThat(Files.exists(LocalFileIO.toPath(metadataLocation))).isFalse();
    assertThatThrownBy(() -> catalog.loadTable(orders)).isInstanceOf(NoSuchTableException.class);
    assertThat(catalog.dropNamespace(namespace)).isTrue();
  }

  @Test
  void stagedCreateIsInvisibleUntilCommitted() {
    Namespace namespace = Namespace.of("staging");
    catalog.createNamespace(namespace, new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of(namespace, "ctas");
    Transaction create = catalog.buildTable(identifier, SCHEMA).createTransaction();
    create.newAppend().appendFile(dataFile(create.table(), "a.parquet", null)).commit();
    assertThat(catalog.tableExists(identifier)).isFalse();
    create.commitTransaction();
    assertThat(catalog.loadTable(identifier).currentSnapshot()).isNotNull();
  }

  @Test
  void namespacesNestAndMissingOnesAreReportedAsSuch() {
    catalog.createNamespace(Namespace.of("a"), new HashMap<>());
    catalog.createNamespace(Namespace.of("a", "b"), new HashMap<>(Map.of("k", "v")));
    assertThat(catalog.listNamespaces(Namespace.of("a"))).containsExactly(Namespace.of("a", "b"));
    assertThat(catalog.loadNamespaceMetadata(Namespace.of("a", "b"))).containsEntry("k", "v");
    catalog.setProperties(Namespace.of("a", "b"), new HashMap<>(Map.of("k", "w", "x", "y")));
    catalog.removeProperties(Namespace.of("a", "b"), new java.util.HashSet<>(List.of("x")));
    assertThat(catalog.loadNamespaceMetadata(Namespace.of("a", "b")))
        .containsEntry("k", "w")
        .doesNotContainKey("x");
    assertThatThrownBy(() -> catalog.createNamespace(Namespace.of("missing", "child")))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThatThrownBy(() -> catalog.listTables(Namespace.of("missing")))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThatThrownBy(() -> catalog.loadTable(TableIdentifier.of("missing", "t")))
        .isInstanceOf(NoSuchTableException.class);
  }

  @Test
  void namesWithSpacesAndPlusSignsMeanTheSameForEveryClientsPathEncoding() throws Exception {
    // Iceberg's Java client (Spark, Trino, Flink) writes a space in a path segment as '+' and a
    // plus as %2B; PyIceberg and iceberg-rust write %20 and %2B. Both mean the same name.
    Namespace namespace = Namespace.of("two words", "a+b");
    catalog.createNamespace(Namespace.of("two words"), new HashMap<>());
    catalog.createNamespace(namespace, new HashMap<>(Map.of("k", "v")));
    TableIdentifier table = TableIdentifier.of(namespace, "c d+e");
    catalog.createTable(table, SCHEMA);
    assertThat(catalog.loadNamespaceMetadata(namespace)).containsEntry("k", "v");
    assertThat(catalog.listNamespaces(Namespace.of("two words"))).containsExactly(namespace);
    assertThat(catalog.namespaceExists(namespace)).isTrue();
    assertThat(catalog.listTables(namespace)).containsExactly(table);
    assertThat(catalog.tableExists(table)).isTrue();
    assertThat(catalog.loadTable(table).schema().asStruct()).isEqualTo(SCHEMA.asStruct());

    assertThat(get("/v1/namespaces/two%20words%1Fa%2Bb/tables/c%20d%2Be", Map.of()).statusCode())
        .isEqualTo(200);
    assertThat(get("/v1/namespaces/two+words%1Fa%2Bb/tables/c+d%2Be", Map.of()).statusCode())
        .isEqualTo(200);
    assertError(get("/v1/namespaces/two+words%1Fa+b/tables/c+d+e", Map.of()), 404, "a b");

    TableIdentifier renamed = TableIdentifier.of(namespace, "f g");
    catalog.renameTable(table, renamed);
    assertThat(catalog.listTables(namespace)).containsExactly(renamed);
    assertThat(catalog.dropTable(renamed, true)).isTrue();
    assertThat(catalog.dropNamespace(namespace)).isTrue();
    assertThat(catalog.listNamespaces(Namespace.of("two words"))).isEmpty();
  }

  @Test
  void viewLifecycle() {
    Namespace namespace = Namespace.of("reports");
    catalog.createNamespace(namespace, new HashMap<>());
    catalog.createTable(TableIdentifier.of(namespace, "events"), SCHEMA);
    TableIdentifier daily = TableIdentifier.of(namespace, "daily");
    View view =
        catalog
            .buildView(daily)
            .withSchema(SCHEMA)
            .withDefaultNamespace(namespace)
            .withQuery("trino", "SELECT id, category FROM events")
            .create();
    assertThat(catalog.viewExists(daily)).isTrue();
    assertThat(catalog.listViews(namespace)).containsExactly(daily);
    assertThat(catalog.listTables(namespace))
        .containsExactly(TableIdentifier.of(namespace, "events"));
    assertThat(view.sqlFor("trino").sql()).isEqualTo("SELECT id, category FROM events");

    catalog
        .buildView(daily)
        .withSchema(SCHEMA)
        .withDefaultNamespace(namespace)
        .withQuery("trino", "SELECT id FROM events")
        .replace();
    assertThat(catalog.loadView(daily).sqlFor("trino").sql()).isEqualTo("SELECT id FROM events");
    assertThat(catalog.loadView(daily).currentVersion().versionId()).isEqualTo(2);

    assertThatThrownBy(
            () ->
                catalog
                    .buildView(TableIdentifier.of(namespace, "events"))
                    .withSchema(SCHEMA)
                    .withDefaultNamespace(namespace)
                    .withQuery("trino", "SELECT 1")
                    .create())
        .isInstanceOf(AlreadyExistsException.class);

    TableIdentifier renamed = TableIdentifier.of(namespace, "daily_v2");
    catalog.renameView(daily, renamed);
    assertThatThrownBy(() -> catalog.loadView(daily)).isInstanceOf(NoSuchViewException.class);
    assertThat(catalog.dropView(renamed)).isTrue();
    assertThat(catalog.viewExists(renamed)).isFalse();
  }

  @Test
  void multiTableTransactionIsAllOrNothing() throws Exception {
    Namespace namespace = Namespace.of("txn");
    catalog.createNamespace(namespace, new HashMap<>());
    catalog.createTable(TableIdentifier.of(namespace, "first"), SCHEMA);
    catalog.createTable(TableIdentifier.of(namespace, "second"), SCHEMA);
    String failing =
        transaction(
            "{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}",
            "{\"type\":\"assert-current-schema-id\",\"current-schema-id\":7}");
    HttpResponse<String> conflict = post("/v1/transactions/commit", failing);
    assertThat(conflict.statusCode()).isEqualTo(409);
    assertThat(conflict.body()).contains("CommitFailedException");
    assertThat(catalog.loadTable(TableIdentifier.of(namespace, "first")).properties())
        .doesNotContainKey("committed");

    String passing =
        transaction(
            "{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}",
            "{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}");
    assertThat(post("/v1/transactions/commit", passing).statusCode()).isEqualTo(204);
    assertThat(catalog.loadTable(TableIdentifier.of(namespace, "first")).properties())
        .containsEntry("committed", "yes");
    assertThat(catalog.loadTable(TableIdentifier.of(namespace, "second")).properties())
        .containsEntry("committed", "yes");
  }

  /**
   * Iceberg clients create a table inside a multi-table transaction with the changes of a new
   * table's metadata and an {@code assert-create} requirement.
   */
  @Test
  void multiTableTransactionCreatesTablesAllOrNothing() throws Exception {
    Namespace namespace = Namespace.of("txn_create");
    catalog.createNamespace(namespace, new HashMap<>());
    TableIdentifier existing = TableIdentifier.of(namespace, "existing");
    Table table = catalog.createTable(existing, SCHEMA);
    TableIdentifier created = TableIdentifier.of(namespace, "created");
    TableIdentifier never = TableIdentifier.of(namespace, "never");

    HttpResponse<String> failing =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(
                    never, LAKESTREAM.dataDir().resolve("warehouse/custom/never").toString()),
                setProperty(existing, table.schema().schemaId() + 1)));
    assertError(failing, 409, "CommitFailedException");
    assertThat(catalog.tableExists(never)).isFalse();
    HttpResponse<String> duplicate =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(
                    existing, LAKESTREAM.dataDir().resolve("warehouse/custom/again").toString()),
                setProperty(existing, table.schema().schemaId())));
    assertError(duplicate, 409, "CommitFailedException");
    assertThat(catalog.loadTable(existing).properties()).doesNotContainKey("committed");

    HttpResponse<String> passing =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(
                    created, LAKESTREAM.dataDir().resolve("warehouse/custom/created").toString()),
                setProperty(existing, table.schema().schemaId())));
    assertThat(passing.statusCode()).as(passing.body()).isEqualTo(204);
    Table loaded = catalog.loadTable(created);
    assertThat(loaded.schema().asStruct()).isEqualTo(SCHEMA.asStruct());
    assertThat(loaded.location())
        .isEqualTo(LAKESTREAM.dataDir().resolve("warehouse/custom/created").toString());
    assertThat(loaded.properties()).containsEntry("owner", "transaction");
    assertThat(catalog.loadTable(existing).properties()).containsEntry("committed", "yes");
    assertThat(catalog.listTables(namespace)).containsExactlyInAnyOrder(existing, created);
    // The table the transaction created holds its location against later creates too.
    assertThatThrownBy(
            () ->
                catalog
                    .buildTable(TableIdentifier.of(namespace, "inside"), SCHEMA)
                    .withLocation(loaded.location() + "/inside")
                    .create())
        .isInstanceOf(org.apache.iceberg.exceptions.ForbiddenException.class)
        .hasMessageContaining("overlaps location");
  }

  /** Two tables created in one transaction cannot claim overlapping locations either. */
  @Test
  void multiTableTransactionRefusesOverlappingLocationsOfItsOwnTables() throws Exception {
    Namespace namespace = Namespace.of("txn_overlap");
    catalog.createNamespace(namespace, new HashMap<>());
    TableIdentifier outer = TableIdentifier.of(namespace, "outer");
    TableIdentifier inner = TableIdentifier.of(namespace, "inner");
    String location = LAKESTREAM.dataDir().resolve("warehouse/custom/pair").toString();
    HttpResponse<String> overlapping =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(outer, location), createChange(inner, location + "/inner")));
    assertError(overlapping, 403, "overlaps location");
    assertThat(catalog.tableExists(outer)).isFalse();
    assertThat(catalog.tableExists(inner)).isFalse();
  }

  /** Tables created in a transaction get the stream-property checks of the create route. */
  @Test
  void multiTableTransactionValidatesStreamPropertiesOfCreatedTables() throws Exception {
    Namespace namespace = Namespace.of("txn_stream_create");
    catalog.createNamespace(namespace, new HashMap<>());
    TableIdentifier other = TableIdentifier.of(namespace, "other");
    Table table = catalog.createTable(other, SCHEMA);
    TableIdentifier stream = TableIdentifier.of(namespace, "stream");

    HttpResponse<String> badKind =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(
                    stream,
                    LAKESTREAM.dataDir().resolve("warehouse/custom/stream").toString(),
                    Map.of("lakestream.kind", "queue")),
                setProperty(other, table.schema().schemaId())));
    assertError(
        badKind, 400, "Cannot commit txn_stream_create.stream: Invalid lakestream.kind 'queue'");
    HttpResponse<String> badKey =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(
                    stream,
                    LAKESTREAM.dataDir().resolve("warehouse/custom/stream").toString(),
                    Map.of("lakestream.kind", "log", "lakestream.bucket-key", "missing"))));
    assertError(badKey, 400, "column 'missing' is not in the table schema");
    HttpResponse<String> withoutKind =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(
                    stream,
                    LAKESTREAM.dataDir().resolve("warehouse/custom/stream").toString(),
                    Map.of("lakestream.buckets", "4"))));
    assertError(withoutKind, 400, "needs lakestream.kind");
    assertThat(catalog.tableExists(stream)).isFalse();
    assertThat(catalog.loadTable(other).properties()).doesNotContainKey("committed");

    HttpResponse<String> good =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                createChange(
                    stream,
                    LAKESTREAM.dataDir().resolve("warehouse/custom/stream").toString(),
                    Map.of("lakestream.kind", "log", "lakestream.buckets", "4"))));
    assertThat(good.statusCode()).as(good.body()).isEqualTo(204);
    assertThat(catalog.loadTable(stream).properties()).containsEntry("lakestream.buckets", "4");
  }

  /**
   * A commit that changes {@code lakestream.*} properties of an existing table is checked the same
   * way in a transaction and in a single-table commit; commits that leave them alone are not.
   */
  @Test
  void streamPropertyChangesAreValidatedInTransactionsAndSingleTableCommits() throws Exception {
    Namespace namespace = Namespace.of("stream_updates");
    catalog.createNamespace(namespace, new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of(namespace, "events");
    Table table =
        catalog.createTable(
            identifier,
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("lakestream.kind", "log", "lakestream.buckets", "2"));

    HttpResponse<String> inTransaction =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                UpdateTableRequest.create(
                    identifier,
                    List.of(),
                    List.of(new MetadataUpdate.SetProperties(Map.of("lakestream.buckets", "0"))))));
    assertError(
        inTransaction,
        400,
        "Cannot commit stream_updates.events: Invalid lakestream.buckets '0': expected an integer"
            + " from 1 to 1024");
    HttpResponse<String> single =
        post(
            "/v1/namespaces/stream_updates/tables/events",
            org.apache.iceberg.rest.requests.UpdateTableRequestParser.toJson(
                UpdateTableRequest.create(
                    identifier,
                    List.of(),
                    List.of(
                        new MetadataUpdate.SetProperties(Map.of("lakestream.kind", "queue"))))));
    assertError(single, 400, "Invalid lakestream.kind 'queue'");
    assertThatThrownBy(() -> table.updateProperties().set("lakestream.buckets", "many").commit())
        .isInstanceOf(org.apache.iceberg.exceptions.BadRequestException.class)
        .hasMessageContaining("Invalid lakestream.buckets 'many'");
    assertThat(catalog.loadTable(identifier).properties())
        .containsEntry("lakestream.kind", "log")
        .containsEntry("lakestream.buckets", "2");

    table.refresh();
    table.updateProperties().set("owner", "ops").commit();
    HttpResponse<String> valid =
        post(
            "/v1/transactions/commit",
            commitTransaction(
                UpdateTableRequest.create(
                    identifier,
                    List.of(),
                    List.of(new MetadataUpdate.SetProperties(Map.of("lakestream.buckets", "3"))))));
    assertThat(valid.statusCode()).as(valid.body()).isEqualTo(204);
    assertThat(catalog.loadTable(identifier).properties())
        .containsEntry("lakestream.buckets", "3")
        .containsEntry("owner", "ops");
  }

  private static UpdateTableRequest createChange(
      TableIdentifier identifier, String location, Map<String, String> properties) {
    Map<String, String> all = new HashMap<>(properties);
    all.put("owner", "transaction");
    List<MetadataUpdate> updates =
        TableMetadata.newTableMetadata(
                SCHEMA, PartitionSpec.unpartitioned(), SortOrder.unsorted(), location, all)
            .changes();
    return UpdateTableRequest.create(
        identifier, UpdateRequirements.forCreateTable(updates), updates);
  }

  private static UpdateTableRequest createChange(TableIdentifier identifier, String location) {
    List<MetadataUpdate> updates =
        TableMetadata.newTableMetadata(
                SCHEMA,
                PartitionSpec.unpartitioned(),
                SortOrder.unsorted(),
                location,
                Map.of("owner", "transaction"))
            .changes();
    return UpdateTableRequest.create(
        identifier, UpdateRequirements.forCreateTable(updates), updates);
  }

  private static UpdateTableRequest setProperty(TableIdentifier identifier, int schemaId) {
    return UpdateTableRequest.create(
        identifier,
        List.of(new UpdateRequirement.AssertCurrentSchemaID(schemaId)),
        List.of(new MetadataUpdate.SetProperties(Map.of("committed", "yes"))));
  }

  private static String commitTransaction(UpdateTableRequest... changes) {
    return CommitTransactionRequestParser.toJson(new CommitTransactionRequest(List.of(changes)));
  }

  @Test
  void retriedMutationsWithTheSameIdempotencyKeyGetTheFirstOutcome() throws Exception {
    String create = "{\"namespace\":[\"idempotent\"]}";
    HttpResponse<String> first = post("/v1/namespaces", create, "key-1");
    assertThat(first.statusCode()).isEqualTo(200);
    HttpResponse<String> retried = post("/v1/namespaces", create, "key-1");
    assertThat(retried.statusCode()).isEqualTo(200);
    assertThat(retried.body()).isEqualTo(first.body());
    HttpResponse<String> fresh = post("/v1/namespaces", create, "key-2");
    assertThat(fresh.statusCode()).isEqualTo(409);

    String table =
        "{\"name\":\"t\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
            + "{\"id\":1,\"name\":\"id\",\"type\":\"long\",\"required\":true}]}}";
    HttpResponse<String> created = post("/v1/namespaces/idempotent/tables", table, "key-3");
    HttpResponse<String> again = post("/v1/namespaces/idempotent/tables", table, "key-3");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(created.body());
    assertThat(again.headers().firstValue("ETag")).isEqualTo(created.headers().firstValue("ETag"));

    HttpResponse<String> reused = post("/v1/namespaces", "{\"namespace\":[\"other\"]}", "key-1");
    assertError(reused, 422, "different request");
    assertThat(get("/v1/config", Map.of()).body())
        .contains("\"idempotency-key-lifetime\":\"PT30M\"");
  }

  /**
   * A keyed table commit stores its answer with the commit itself: a retry gets the same body and
   * ETag, and that body is the metadata a reader of the committed file gets (here a gzipped file,
   * which the server parses from the bytes it wrote rather than reading them back).
   */
  @Test
  void keyedTableCommitAnswersWithTheCommittedFileAndReplaysIt() throws Exception {
    catalog.createNamespace(Namespace.of("keyed"), new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of("keyed", "t");
    Table table =
        catalog
            .buildTable(identifier, SCHEMA)
            .withProperty("write.metadata.compression-codec", "gzip")
            .create();
    String path = "/v1/namespaces/keyed/tables/t";
    String commit =
        org.apache.iceberg.rest.requests.UpdateTableRequestParser.toJson(
            UpdateTableRequest.create(
                identifier,
                List.of(new UpdateRequirement.AssertCurrentSchemaID(table.schema().schemaId())),
                List.of(new MetadataUpdate.SetProperties(Map.of("keyed", "yes")))));

    HttpResponse<String> first = post(path, commit, "commit-key-1");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    HttpResponse<String> retried = post(path, commit, "commit-key-1");
    assertThat(retried.statusCode()).isEqualTo(200);
    assertThat(retried.body()).isEqualTo(first.body());
    assertThat(retried.headers().firstValue("ETag"))
        .isPresent()
        .isEqualTo(first.headers().firstValue("ETag"));
    assertError(post(path, commit.replace("yes", "no"), "commit-key-1"), 422, "different request");

    org.apache.iceberg.rest.responses.LoadTableResponse answered =
        org.apache.iceberg.rest.responses.LoadTableResponseParser.fromJson(first.body());
    String location = answered.metadataLocation();
    assertThat(location).endsWith(".gz.metadata.json");
    assertThat(
            ((org.apache.iceberg.BaseTable) catalog.loadTable(identifier))
                .operations()
                .current()
                .metadataFileLocation())
        .isEqualTo(location);
    TableMetadata onDisk = org.apache.iceberg.TableMetadataParser.read(new LocalFileIO(), location);
    assertThat(org.apache.iceberg.TableMetadataParser.toJson(answered.tableMetadata()))
        .isEqualTo(org.apache.iceberg.TableMetadataParser.toJson(onDisk));
    assertThat(onDisk.properties()).containsEntry("keyed", "yes");
    assertThat(get(path, Map.of()).body())
        .isEqualTo(
            new String(
                CatalogHttpServer.icebergMapper()
                    .writeValueAsBytes(
                        org.apache.iceberg.rest.responses.LoadTableResponse.builder()
                            .withTableMetadata(onDisk)
                            .build()),
                StandardCharsets.UTF_8));
  }

  /**
   * An unkeyed commit answers with exactly what loadTable then answers for the metadata it
   * committed: the same body and ETag, so the client's next conditional load gets a 304.
   */
  @Test
  void commitAnswersWhatLoadTableAnswersForTheCommittedMetadata() throws Exception {
    catalog.createNamespace(Namespace.of("answers"), new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of("answers", "t");
    Table table = catalog.createTable(identifier, SCHEMA);
    String path = "/v1/namespaces/answers/tables/t";
    String before = get(path, Map.of()).headers().firstValue("ETag").orElseThrow();
    String commit =
        org.apache.iceberg.rest.requests.UpdateTableRequestParser.toJson(
            UpdateTableRequest.create(
                identifier,
                List.of(new UpdateRequirement.AssertCurrentSchemaID(table.schema().schemaId())),
                List.of(new MetadataUpdate.SetProperties(Map.of("answered", "yes")))));

    HttpResponse<String> committed = post(path, commit);
    assertThat(committed.statusCode()).as(committed.body()).isEqualTo(200);
    String etag = committed.headers().firstValue("ETag").orElseThrow();
    assertThat(etag).isNotEqualTo(before);
    HttpResponse<String> loaded = get(path, Map.of());
    assertThat(loaded.body()).isEqualTo(committed.body());
    assertThat(loaded.headers().firstValue("ETag")).contains(etag);
    assertThat(get(path, Map.of("If-None-Match", etag)).statusCode()).isEqualTo(304);
    org.apache.iceberg.rest.responses.LoadTableResponse answer =
        org.apache.iceberg.rest.responses.LoadTableResponseParser.fromJson(committed.body());
    assertThat(answer.tableMetadata().properties()).containsEntry("answered", "yes");
    assertThat(answer.metadataLocation())
        .isEqualTo(
            ((org.apache.iceberg.BaseTable) catalog.loadTable(identifier))
                .operations()
                .current()
                .metadataFileLocation());
    // The answer is Iceberg's serialization of itself, and its metadata is the file's content.
    com.fasterxml.jackson.databind.ObjectMapper json = org.apache.iceberg.util.JsonUtil.mapper();
    assertThat(json.readTree(committed.body()))
        .isEqualTo(
            json.readTree(
                org.apache.iceberg.rest.responses.LoadTableResponseParser.toJson(answer)));
    assertThat(json.readTree(committed.body()).get("metadata"))
        .isEqualTo(json.readTree(Files.readAllBytes(localPath(answer.metadataLocation()))));
  }

  @Test
  void tablesWithCompressedMetadataFilesLoadAndCommit() throws Exception {
    catalog.createNamespace(Namespace.of("compressed"), new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of("compressed", "t");
    catalog
        .buildTable(identifier, SCHEMA)
        .withProperty("write.metadata.compression-codec", "gzip")
        .create()
        .updateProperties()
        .set("after", "gzip")
        .commit();
    HttpResponse<String> loaded = get("/v1/namespaces/compressed/tables/t", Map.of());
    assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);
    org.apache.iceberg.rest.responses.LoadTableResponse answer =
        org.apache.iceberg.rest.responses.LoadTableResponseParser.fromJson(loaded.body());
    assertThat(answer.metadataLocation()).endsWith(".gz.metadata.json");
    assertThat(answer.tableMetadata().properties()).containsEntry("after", "gzip");
    assertThat(catalog.loadTable(identifier).properties()).containsEntry("after", "gzip");
  }

  /**
   * Concurrent repeats of one keyed commit without requirements: the change commits once, and every
   * repeat answers with its outcome (or 503, which clients retry).
   */
  @Test
  void concurrentRepeatsOfAKeyedCommitCommitOnce() throws Exception {
    catalog.createNamespace(Namespace.of("repeats"), new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of("repeats", "t");
    catalog.createTable(identifier, SCHEMA);
    int before =
        ((org.apache.iceberg.BaseTable) catalog.loadTable(identifier))
            .operations()
            .current()
            .previousFiles()
            .size();
    String commit =
        org.apache.iceberg.rest.requests.UpdateTableRequestParser.toJson(
            UpdateTableRequest.create(
                identifier,
                List.of(),
                List.of(new MetadataUpdate.SetProperties(Map.of("repeated", "once")))));

    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> repeats =
        new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      repeats.add(
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  return post("/v1/namespaces/repeats/tables/t", commit, "repeat-key");
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    List<HttpResponse<String>> answers =
        repeats.stream().map(java.util.concurrent.CompletableFuture::join).toList();

    assertThat(answers).allSatisfy(answer -> assertThat(answer.statusCode()).isIn(200, 503));
    List<String> bodies =
        answers.stream()
            .filter(answer -> answer.statusCode() == 200)
            .map(HttpResponse::body)
            .toList();
    assertThat(bodies).isNotEmpty();
    assertThat(new java.util.HashSet<>(bodies)).hasSize(1);
    TableMetadata after =
        ((org.apache.iceberg.BaseTable) catalog.loadTable(identifier)).operations().current();
    assertThat(after.previousFiles()).hasSize(before + 1);
    assertThat(after.properties()).containsEntry("repeated", "once");
  }

  private static String transaction(String firstRequirement, String secondRequirement) {
    String change =
        "{\"identifier\":{\"namespace\":[\"txn\"],\"name\":\"%s\"},\"requirements\":[%s],"
            + "\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"committed\":\"yes\"}}]}";
    return "{\"table-changes\":["
        + change.formatted("first", firstRequirement)
        + ","
        + change.formatted("second", secondRequirement)
        + "]}";
  }

  @Test
  void loadTableHonoursETags() throws Exception {
    catalog.createNamespace(Namespace.of("etags"), new HashMap<>());
    Table table = catalog.createTable(TableIdentifier.of("etags", "t"), SCHEMA);
    HttpResponse<String> first = get("/v1/namespaces/etags/tables/t", Map.of());
    assertThat(first.statusCode()).isEqualTo(200);
    String etag = first.headers().firstValue("ETag").orElseThrow();

    HttpResponse<String> unchanged =
        get("/v1/namespaces/etags/tables/t", Map.of("If-None-Match", etag));
    assertThat(unchanged.statusCode()).isEqualTo(304);
    assertThat(unchanged.body()).isEmpty();

    table.updateProperties().set("changed", "true").commit();
    HttpResponse<String> changed =
        get("/v1/namespaces/etags/tables/t", Map.of("If-None-Match", etag));
    assertThat(changed.statusCode()).isEqualTo(200);
    assertThat(changed.headers().firstValue("ETag").orElseThrow()).isNotEqualTo(etag);
    assertThat(
            get("/v1/namespaces/etags/tables/t?snapshots=refs", Map.of())
                .headers()
                .firstValue("ETag"))
        .isPresent()
        .get()
        .isNotEqualTo(changed.headers().firstValue("ETag").orElseThrow());
  }

  @Test
  void loadTableIsGzippedForClientsThatAcceptIt() throws Exception {
    catalog.createNamespace(Namespace.of("gzip"), new HashMap<>());
    // Big enough to be worth compressing (a new table's metadata alone is not).
    catalog
        .buildTable(TableIdentifier.of("gzip", "t"), SCHEMA)
        .withProperty("comment", "gzip ".repeat(1000))
        .create();
    HttpResponse<String> plain = get("/v1/namespaces/gzip/tables/t", Map.of());
    HttpRequest gzipRequest =
        HttpRequest.newBuilder(URI.create(base + "/v1/namespaces/gzip/tables/t"))
            .header("Accept-Encoding", "gzip")
            .build();
    HttpResponse<byte[]> gzipped = http.send(gzipRequest, HttpResponse.BodyHandlers.ofByteArray());

    assertThat(gzipped.statusCode()).isEqualTo(200);
    assertThat(gzipped.headers().firstValue("Content-Encoding")).contains("gzip");
    assertThat(gzipped.body().length).isLessThan(plain.body().length());
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped.body()))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(plain.body());
    }
    String plainETag = plain.headers().firstValue("ETag").orElseThrow();
    String gzipETag = gzipped.headers().firstValue("ETag").orElseThrow();
    assertThat(gzipETag).isNotEqualTo(plainETag);
    assertThat(get("/v1/namespaces/gzip/tables/t", Map.of("If-None-Match", gzipETag)).statusCode())
        .isEqualTo(304);

    // zstd wins when accepted (as Iceberg's HTTP client offers it), and a refused coding is not
    // used
    HttpResponse<byte[]> zstd =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/namespaces/gzip/tables/t"))
                .header("Accept-Encoding", "gzip, deflate, zstd, x-gzip")
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(zstd.headers().firstValue("Content-Encoding")).contains("zstd");
    assertThat(zstd.body().length).isLessThan(plain.body().length());
    assertThat(new String(Zstd.decompress(zstd.body(), plain.body().length()), UTF_8))
        .isEqualTo(plain.body());
    String zstdETag = zstd.headers().firstValue("ETag").orElseThrow();
    assertThat(zstdETag).isNotIn(plainETag, gzipETag);
    assertThat(get("/v1/namespaces/gzip/tables/t", Map.of("If-None-Match", zstdETag)).statusCode())
        .isEqualTo(304);
    HttpResponse<String> refused =
        get("/v1/namespaces/gzip/tables/t", Map.of("Accept-Encoding", "zstd;q=0, gzip;q=0"));
    assertThat(refused.headers().firstValue("Content-Encoding")).isEmpty();
    assertThat(refused.body()).isEqualTo(plain.body());
  }

  @Test
  void listsPageWithTokens() throws Exception {
    Namespace namespace = Namespace.of("paged");
    catalog.createNamespace(namespace, new HashMap<>());
    for (int i = 0; i < 5; i++) {
      catalog.createTable(TableIdentifier.of(namespace, "t" + i), SCHEMA);
    }
    HttpResponse<String> page = get("/v1/namespaces/paged/tables?pageSize=2", Map.of());
    assertThat(page.body()).contains("\"t0\"").contains("\"t1\"").doesNotContain("\"t2\"");
    String token = page.body().replaceAll(".*\"next-page-token\":\"([^\"]+)\".*", "$1");
    HttpResponse<String> next =
        get("/v1/namespaces/paged/tables?pageSize=2&pageToken=" + token, Map.of());
    assertThat(next.body()).contains("\"t2\"").contains("\"t3\"").doesNotContain("\"t1\"");
    assertThat(catalog.listTables(namespace)).hasSize(5);
  }

  /**
   * Every commit update that names a spec, sort order, schema or snapshot by id, naming one the
   * table does not have: a 400 whose message names the update, the id and the table (Iceberg's
   * builder alone answered some of them with a NullPointerException's text, e.g. "Cannot read field
   * "fields" because "spec" is null"), or, for removals of what is not there, the same success as
   * Iceberg's reference server; never a 5xx, and nothing committed by a refused one.
   */
  @Test
  void aCommitNamingAMissingIdIsRefusedNamingTheId() throws Exception {
    Namespace namespace = Namespace.of("missing_ids");
    catalog.createNamespace(namespace, new HashMap<>());
    TableIdentifier identifier = TableIdentifier.of(namespace, "t");
    Table table =
        catalog.createTable(
            identifier, SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("category").build());
    table.newAppend().appendFile(dataFile(table, "category=books/a.parquet", "books")).commit();
    long snapshotId = catalog.loadTable(identifier).currentSnapshot().snapshotId();
    String path = "/v1/namespaces/missing_ids/tables/t";
    String stats = table.location() + "/metadata/stats.puffin";

    Map<String, String> refused = new java.util.LinkedHashMap<>();
    refused.put(
        "{\"action\":\"set-default-spec\",\"spec-id\":7}",
        "Cannot set the default partition spec of missing_ids.t: it has no partition spec 7");
    refused.put(
        "{\"action\":\"set-default-sort-order\",\"sort-order-id\":7}",
        "Cannot set the default sort order of missing_ids.t: it has no sort order 7");
    refused.put(
        "{\"action\":\"set-current-schema\",\"schema-id\":7}",
        "Cannot set the current schema of missing_ids.t: it has no schema 7");
    refused.put(
        "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"b1\",\"type\":\"branch\","
            + "\"snapshot-id\":424242}",
        "Cannot set ref b1 of missing_ids.t: it has no snapshot 424242");
    refused.put(
        "{\"action\":\"set-statistics\",\"snapshot-id\":424242,\"statistics\":"
            + "{\"snapshot-id\":424242,\"statistics-path\":\""
            + stats
            + "\",\"file-size-in-bytes\":1,\"file-footer-size-in-bytes\":1,"
            + "\"blob-metadata\":[]}}",
        "Cannot set statistics of missing_ids.t: it has no snapshot 424242");
    refused.put(
        "{\"action\":\"set-partition-statistics\",\"partition-statistics\":"
            + "{\"snapshot-id\":424242,\"statistics-path\":\""
            + stats
            + "\",\"file-size-in-bytes\":1}}",
        "Cannot set partition statistics of missing_ids.t: it has no snapshot 424242");
    org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
    for (Map.Entry<String, String> update : refused.entrySet()) {
      HttpResponse<String> response =
          post(path, "{\"requirements\":[],\"updates\":[" + update.getKey() + "]}");
      soft.assertThat(response.statusCode())
          .as(update.getKey() + ": " + response.body())
          .isEqualTo(400);
      soft.assertThat(response.body()).as(update.getKey()).contains(update.getValue());
      soft.assertThat(response.body()).as(update.getKey()).doesNotContain("NullPointerException");
    }
    // Removing what is not there is a no-op, as in Iceberg's reference server.
    for (String update :
        List.of(
            "{\"action\":\"remove-snapshots\",\"snapshot-ids\":[424242]}",
            "{\"action\":\"remove-statistics\",\"snapshot-id\":424242}",
            "{\"action\":\"remove-partition-statistics\",\"snapshot-id\":424242}",
            "{\"action\":\"remove-snapshot-ref\",\"ref-name\":\"nope\"}")) {
      HttpResponse<String> response =
          post(path, "{\"requirements\":[],\"updates\":[" + update + "]}");
      soft.assertThat(response.statusCode()).as(update + ": " + response.body()).isLessThan(500);
      if (response.statusCode() == 400) {
        soft.assertThat(response.body()).as(update).contains("424242");
      }
    }
    // A set-default-spec naming a spec the same commit adds is not refused.
    HttpResponse<String> addAndSet =
        post(
            path,
            "{\"requirements\":[],\"updates\":[{\"action\":\"add-spec\",\"spec\":"
                + "{\"spec-id\":0,\"fields\":[]}},{\"action\":\"set-default-spec\",\"spec-id\":-1}]}");
    soft.assertThat(addAndSet.statusCode()).as(addAndSet.body()).isEqualTo(200);
    soft.assertAll();
    Table after = catalog.loadTable(identifier);
    assertThat(after.currentSnapshot().snapshotId()).isEqualTo(snapshotId);
    assertThat(after.refs()).doesNotContainKey("b1");
    assertThat(after.statisticsFiles()).isEmpty();
    assertThat(after.spec().isUnpartitioned()).isTrue();
  }

  @Test
  void badInputGetsClearClientErrors() throws Exception {
    assertError(post("/v1/namespaces", "{not json"), 400, "BadRequestException");
    assertError(post("/v1/namespaces", "{\"namespace\":[\"..\"]}"), 400, "Invalid name '..'");
    assertError(post("/v1/namespaces", "{\"namespace\":[\"a/b\"]}"), 400, "BadRequestException");
    assertError(
        post("/v1/namespaces", "{\"namespace\":[\"" + "n".repeat(300) + "\"]}"),
        400,
        "at most 255");
    assertError(post("/v1/namespaces", ""), 400, "Missing request body");
    assertError(
        post("/v1/namespaces", "{\"namespace\":[\"" + "x".repeat(70_000) + "\"]}"), 413, "");
    assertError(get("/v1/namespaces/%2E%2E/tables", Map.of()), 400, "Invalid name '..'");
    assertError(get("/v1/namespaces?pageSize=zero", Map.of()), 400, "pageSize");
    assertError(get("/v1/nowhere/namespaces/x/tables/y/z", Map.of()), 404, "NotFoundException");
    assertError(get("/v1/unknown-warehouse/namespaces", Map.of()), 404, "Warehouse does not exist");
    assertError(get("/v1/config?warehouse=nope", Map.of()), 400, "Unknown warehouse");
    assertError(
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/namespaces"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString()),
        405,
        "not allowed");
  }

  private static Path localPath(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }

  private static void assertError(HttpResponse<String> response, int status, String text) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.body()).contains("\"code\":" + status).contains(text);
  }

  private static DataFile dataFile(Table table, String name, String category) {
    DataFiles.Builder builder =
        DataFiles.builder(table.spec())
            .withPath(table.location() + "/data/" + name)
            .withFileSizeInBytes(1024)
            .withRecordCount(10)
            .withFormat(FileFormat.PARQUET);
    if (category != null) {
      builder.withPartitionPath("category=" + category);
    }
    return builder.build();
  }

  private static HttpResponse<String> get(String path, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return post(path, body, null);
  }

  private static HttpResponse<String> post(String path, String body, String idempotencyKey)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (idempotencyKey != null) {
      request.header("Idempotency-Key", idempotencyKey);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
