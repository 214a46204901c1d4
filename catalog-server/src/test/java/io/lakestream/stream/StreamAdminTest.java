package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Admin;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.Table;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TableDescription;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.server.LakestreamServer;
import io.lakestream.testing.LakestreamExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Creating, listing and dropping tables over the stream RPC changes the catalog REST clients see,
 * with the REST catalog's validation and grants.
 */
class StreamAdminTest {
  private static final Schema CLICKS =
      new Schema(
          List.of(
              Types.NestedField.required(1, "user_id", Types.LongType.get()),
              Types.NestedField.optional(2, "url", Types.StringType.get()),
              Types.NestedField.optional(3, "at", Types.TimestampType.withZone())),
          java.util.Set.of(1));

  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder()
          .oauth2("writer:w-secret,reader:r-secret", "writer:write:default,reader:read:default")
          .catalogCredential("writer:w-secret")
          .build();

  private static LakestreamServer server;
  private static String base;
  private static RESTCatalog catalog;
  private static Connection writer;
  private static Connection reader;

  @BeforeAll
  static void start() throws Exception {
    server = LAKESTREAM.server();
    base = LAKESTREAM.base();
    catalog = LAKESTREAM.catalog();
    writer = Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("writer", "w-secret"));
    reader = Connection.open("127.0.0.1", server.rpcPort(), LAKESTREAM.token("reader", "r-secret"));
    writer.admin().createNamespace(null, List.of("adm"));
  }

  @AfterAll
  static void stop() throws Exception {
    reader.close();
    writer.close();
  }

  private static RpcException rpcError(ThrowingCallable call) {
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(thrown).isInstanceOf(RpcException.class);
    return (RpcException) thrown;
  }

  @Test
  void aTableCreatedOverRpcIsSeenByRestAndDroppedWithItsStream() {
    Admin admin = writer.admin();
    TablePath path = TablePath.of("adm.clicks");
    String id =
        admin.createTable(path, TableDescriptor.logTable(CLICKS, 3).withBucketKey("user_id"));

    org.apache.iceberg.Table rest = catalog.loadTable(TableIdentifier.of("adm", "clicks"));
    assertThat(rest.uuid().toString()).isEqualTo(id);
    assertThat(rest.schema().sameSchema(CLICKS)).as("schema %s", rest.schema()).isTrue();
    assertThat(rest.schema().identifierFieldIds()).containsExactly(1);
    assertThat(rest.properties())
        .containsEntry("lakestream.kind", "log")
        .containsEntry("lakestream.buckets", "3")
        .containsEntry("lakestream.bucket-key", "user_id");
    assertThat(admin.listTables(null, List.of("adm"))).contains("clicks");
    assertThat(admin.tableExists(path)).isTrue();

    Table table = writer.table(path);
    assertThat(table.id()).isEqualTo(id);
    assertThat(table.buckets()).isEqualTo(3);
    try (AppendWriter append = table.newAppendWriter()) {
      append.append(7L, "https://example.com/", 1_700_000_000_000_000L);
    }
    assertThat(readRows(table, 1)).hasSize(1);

    assertThat(admin.dropTable(path)).isTrue();
    assertThat(catalog.tableExists(TableIdentifier.of("adm", "clicks"))).isFalse();
    assertThat(admin.tableExists(path)).isFalse();
    assertThat(rpcError(() -> writer.table(path)).error()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
    assertThat(admin.dropTable(path)).isFalse();

    // A new table of the same name starts with an empty stream: the old data went with the drop.
    admin.createTable(path, TableDescriptor.logTable(CLICKS, 3));
    Table again = writer.table(path);
    for (int bucket = 0; bucket < 3; bucket++) {
      assertThat(again.latestOffset(bucket)).isZero();
    }
  }

  @Test
  void aNamespaceCreatedOverRpcIsSeenByRest() {
    writer.admin().createNamespace(null, List.of("adm", "nested"));
    assertThat(catalog.namespaceExists(Namespace.of("adm", "nested"))).isTrue();
    assertThat(rpcError(() -> writer.admin().createNamespace(null, List.of("adm"))).error())
        .isEqualTo(ErrorCode.ALREADY_EXISTS);
  }

  @Test
  void aTableCreatedWithRestIsListedAndDroppedOverRpc() {
    catalog.createTable(
        TableIdentifier.of("adm", "plain"), CLICKS, PartitionSpec.unpartitioned(), Map.of());
    assertThat(reader.admin().listTables(null, List.of("adm"))).contains("plain");
    assertThat(writer.admin().dropTable(TablePath.of("adm.plain"))).isTrue();
    assertThat(catalog.tableExists(TableIdentifier.of("adm", "plain"))).isFalse();
  }

  @Test
  void nestedTypesAndPartitionSpecsRoundTripThroughTheClientsSchemaJson() {
    Schema nested =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get(), "the \"key\""),
            Types.NestedField.optional(2, "price", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(3, "hash", Types.FixedType.ofLength(16)),
            Types.NestedField.optional(4, "day", Types.DateType.get()),
            Types.NestedField.optional(
                5, "tags", Types.ListType.ofRequired(6, Types.StringType.get())),
            Types.NestedField.optional(
                7,
                "attributes",
                Types.MapType.ofOptional(8, 9, Types.StringType.get(), Types.DoubleType.get())),
            Types.NestedField.optional(
                10,
                "where",
                Types.StructType.of(
                    Types.NestedField.required(11, "lat", Types.FloatType.get()),
                    Types.NestedField.required(12, "lon", Types.FloatType.get()))),
            Types.NestedField.optional(13, "seen", Types.TimestampType.withoutZone()));
    PartitionSpec spec = PartitionSpec.builderFor(nested).day("seen").bucket("id", 8).build();
    TablePath path = TablePath.of("adm.nested_types");

    writer
        .admin()
        .createTable(
            path,
            TableDescriptor.of(nested, Map.of("owner", "test"))
                .withPartitionSpecJson(PartitionSpecParser.toJson(spec)));

    org.apache.iceberg.Table rest = catalog.loadTable(TableIdentifier.of("adm", "nested_types"));
    // The catalog numbers the fields afresh, as a REST createTable does.
    java.util.concurrent.atomic.AtomicInteger lastId =
        new java.util.concurrent.atomic.AtomicInteger();
    assertThat(rest.schema().sameSchema(TypeUtil.assignFreshIds(nested, lastId::incrementAndGet)))
        .as("schema %s", rest.schema())
        .isTrue();
    assertThat(rest.schema().findField("id").doc()).isEqualTo("the \"key\"");
    assertThat(rest.spec().fields()).hasSize(2);
    assertThat(rest.spec().fields().get(0).transform().toString()).isEqualTo("day");
    assertThat(rest.spec().fields().get(1).transform().toString()).isEqualTo("bucket[8]");
    assertThat(rest.properties()).containsEntry("owner", "test");
  }

  @Test
  void invalidDefinitionsAreRefusedWithTheReason() {
    Admin admin = writer.admin();
    RpcException noBuckets =
        rpcError(
            () ->
                admin.createTable(
                    TablePath.of("adm.bad"),
                    // The builder refuses 0 itself; the server must too.
                    TableDescriptor.logTable(CLICKS, 1).withProperty("lakestream.buckets", "0")));
    assertThat(noBuckets.error()).isEqualTo(ErrorCode.INVALID_TABLE_DEFINITION);
    assertThat(noBuckets.getMessage()).contains("lakestream.buckets", "'0'", "1 to 1024");

    RpcException badKey =
        rpcError(
            () ->
                admin.createTable(
                    TablePath.of("adm.bad"),
                    TableDescriptor.logTable(CLICKS, 2).withBucketKey("country")));
    assertThat(badKey.error()).isEqualTo(ErrorCode.INVALID_TABLE_DEFINITION);
    assertThat(badKey.getMessage()).contains("country");

    RpcException badKind =
        rpcError(
            () ->
                admin.createTable(
                    TablePath.of("adm.bad"),
                    TableDescriptor.logTable(CLICKS, 2).withProperty("lakestream.kind", "queue")));
    assertThat(badKind.error()).isEqualTo(ErrorCode.INVALID_TABLE_DEFINITION);
    assertThat(badKind.getMessage()).contains("queue");

    RpcException badSchema =
        rpcError(
            () ->
                admin.createTable(
                    TablePath.of("adm.bad"), TableDescriptor.logTable("{\"type\":\"nope\"}", 1)));
    assertThat(badSchema.error()).isEqualTo(ErrorCode.INVALID_TABLE_DEFINITION);

    RpcException badName =
        rpcError(
            () ->
                admin.createTable(
                    new TablePath(null, List.of("adm"), "../escape"),
                    TableDescriptor.logTable(CLICKS, 1)));
    assertThat(badName.error()).isEqualTo(ErrorCode.INVALID_REQUEST);

    assertThat(admin.tableExists(TablePath.of("adm.bad"))).isFalse();
    assertThat(catalog.tableExists(TableIdentifier.of("adm", "bad"))).isFalse();
  }

  @Test
  void duplicatesAndMissingNamespacesAreTyped() {
    Admin admin = writer.admin();
    TablePath path = TablePath.of("adm.twice");
    admin.createTable(path, TableDescriptor.logTable(CLICKS, 1));
    RpcException duplicate =
        rpcError(() -> admin.createTable(path, TableDescriptor.logTable(CLICKS, 2)));
    assertThat(duplicate.error()).isEqualTo(ErrorCode.ALREADY_EXISTS);
    assertThat(duplicate.getMessage()).contains("twice");
    assertThat(writer.table(path).buckets()).isEqualTo(1);

    assertThat(
            rpcError(
                    () ->
                        admin.createTable(
                            TablePath.of("nowhere.events"), TableDescriptor.logTable(CLICKS, 1)))
                .error())
        .isEqualTo(ErrorCode.UNKNOWN_NAMESPACE);
    assertThat(rpcError(() -> admin.listTables(null, List.of("nowhere"))).error())
        .isEqualTo(ErrorCode.UNKNOWN_NAMESPACE);
    assertThat(rpcError(() -> admin.listTables("no-such-warehouse", List.of("adm"))).error())
        .isEqualTo(ErrorCode.UNKNOWN_NAMESPACE);
    assertThat(admin.tableExists(TablePath.of("nowhere.events"))).isFalse();
  }

  @Test
  void grantsAreTheRestCatalogs() throws Exception {
    Admin readOnly = reader.admin();
    writer.admin().createTable(TablePath.of("adm.guarded"), TableDescriptor.logTable(CLICKS, 1));

    assertThat(readOnly.listTables(null, List.of("adm"))).contains("guarded");
    RpcException create =
        rpcError(
            () ->
                readOnly.createTable(
                    TablePath.of("adm.mine"), TableDescriptor.logTable(CLICKS, 1)));
    assertThat(create.error()).isEqualTo(ErrorCode.NOT_AUTHORIZED);
    assertThat(create.getMessage()).contains("reader", "write");
    assertThat(rpcError(() -> readOnly.dropTable(TablePath.of("adm.guarded"))).error())
        .isEqualTo(ErrorCode.NOT_AUTHORIZED);
    assertThat(rpcError(() -> readOnly.createNamespace(null, List.of("theirs"))).error())
        .isEqualTo(ErrorCode.NOT_AUTHORIZED);
    assertThat(catalog.tableExists(TableIdentifier.of("adm", "guarded"))).isTrue();
    assertThat(catalog.tableExists(TableIdentifier.of("adm", "mine"))).isFalse();

    try (Connection anonymous = Connection.open("127.0.0.1", server.rpcPort(), null)) {
      assertThat(rpcError(() -> anonymous.admin().listTables(null, List.of("adm"))).error())
          .isEqualTo(ErrorCode.NOT_AUTHENTICATED);
    }
  }

  @Test
  void ifNotExistsFormsSayWhetherTheyCreated() {
    Admin admin = writer.admin();
    assertThat(admin.createNamespaceIfNotExists(null, List.of("adm_once"))).isTrue();
    assertThat(catalog.namespaceExists(Namespace.of("adm_once"))).isTrue();
    assertThat(admin.createNamespaceIfNotExists(null, List.of("adm_once"))).isFalse();

    TablePath path = TablePath.of("adm_once.events");
    assertThat(admin.createTableIfNotExists(path, TableDescriptor.logTable(CLICKS, 2))).isTrue();
    // An existing table is left as it is, even with another definition.
    assertThat(admin.createTableIfNotExists(path, TableDescriptor.logTable(CLICKS, 5))).isFalse();
    assertThat(writer.table(path).buckets()).isEqualTo(2);

    // Other refusals still throw.
    assertThat(
            rpcError(
                    () ->
                        admin.createTableIfNotExists(
                            TablePath.of("nowhere.events"), TableDescriptor.logTable(CLICKS, 1)))
                .error())
        .isEqualTo(ErrorCode.UNKNOWN_NAMESPACE);
    assertThat(
            rpcError(
                    () ->
                        reader
                            .admin()
                            .createTableIfNotExists(
                                TablePath.of("adm_once.theirs"),
                                TableDescriptor.logTable(CLICKS, 1)))
                .error())
        .isEqualTo(ErrorCode.NOT_AUTHORIZED);
    assertThat(
            rpcError(() -> reader.admin().createNamespaceIfNotExists(null, List.of("adm_reader")))
                .error())
        .isEqualTo(ErrorCode.NOT_AUTHORIZED);
    assertThat(
            rpcError(() -> admin.createNamespaceIfNotExists(null, List.of("adm_once", "bad/name")))
                .error())
        .isEqualTo(ErrorCode.INVALID_REQUEST);
  }

  @Test
  void tableExistsAsksForTheTableItself() throws Exception {
    catalog.createTable(
        TableIdentifier.of("adm", "plain_exists"), CLICKS, PartitionSpec.unpartitioned(), Map.of());
    assertThat(reader.admin().tableExists(TablePath.of("adm.plain_exists"))).isTrue();
    assertThat(reader.admin().tableExists(TablePath.of("adm.never_made"))).isFalse();
    assertThat(reader.admin().tableExists(TablePath.of("nowhere.plain_exists"))).isFalse();
    assertThat(
            reader
                .admin()
                .tableExists(new TablePath("no-such-warehouse", List.of("adm"), "plain_exists")))
        .isFalse();
    try (Connection anonymous = Connection.open("127.0.0.1", server.rpcPort(), null)) {
      assertThat(
              rpcError(() -> anonymous.admin().tableExists(TablePath.of("adm.plain_exists")))
                  .error())
          .isEqualTo(ErrorCode.NOT_AUTHENTICATED);
    }
  }

  @Test
  void aPrimaryKeyTableBuiltByTheDescriptorIsAcceptedAsIs() {
    Schema users =
        new Schema(
            Types.NestedField.optional(1, "tenant", Types.StringType.get()),
            Types.NestedField.optional(2, "user_id", Types.LongType.get()),
            Types.NestedField.optional(3, "name", Types.StringType.get()),
            Types.NestedField.optional(4, "version", Types.LongType.get()));
    TablePath path = TablePath.of("adm.users");

    writer
        .admin()
        .createTable(
            path,
            TableDescriptor.primaryKeyTable(users, List.of("tenant", "user_id"), 4)
                .withBucketKey("tenant")
                .withVersionColumn("version")
                .withTieringInterval(Duration.ofMinutes(2)));

    org.apache.iceberg.Table rest = catalog.loadTable(TableIdentifier.of("adm", "users"));
    assertThat(rest.schema().identifierFieldNames()).containsExactlyInAnyOrder("tenant", "user_id");
    assertThat(rest.schema().findField("tenant").isRequired()).isTrue();
    assertThat(rest.schema().findField("user_id").isRequired()).isTrue();
    assertThat(rest.schema().findField("name").isOptional()).isTrue();
    assertThat(rest.properties())
        .containsEntry("lakestream.kind", "primary-key")
        .containsEntry("lakestream.buckets", "4")
        .containsEntry("lakestream.bucket-key", "tenant")
        .containsEntry("lakestream.merge-engine", "versioned")
        .containsEntry("lakestream.merge-engine.version-column", "version")
        .containsEntry("lakestream.tiering.interval", "120000ms");
    Table table = writer.table(path);
    assertThat(table.kind()).isEqualTo("primary-key");
    assertThat(table.primaryKey()).containsExactly("tenant", "user_id");
    assertThat(table.bucketKey()).containsExactly("tenant");

    // What only the server can check is still refused with the reason.
    RpcException notAPrefix =
        rpcError(
            () ->
                writer
                    .admin()
                    .createTable(
                        TablePath.of("adm.users_bad"),
                        TableDescriptor.primaryKeyTable(users, List.of("tenant", "user_id"), 2)
                            .withBucketKey("name")));
    assertThat(notAPrefix.error()).isEqualTo(ErrorCode.INVALID_TABLE_DEFINITION);
    assertThat(notAPrefix.getMessage()).contains("name");
    RpcException noVersionColumn =
        rpcError(
            () ->
                writer
                    .admin()
                    .createTable(
                        TablePath.of("adm.users_bad"),
                        TableDescriptor.primaryKeyTable(users, List.of("user_id"), 2)
                            .withVersionColumn("updated_at")));
    assertThat(noVersionColumn.error()).isEqualTo(ErrorCode.INVALID_TABLE_DEFINITION);
    assertThat(noVersionColumn.getMessage()).contains("updated_at");
    assertThat(writer.admin().tableExists(TablePath.of("adm.users_bad"))).isFalse();
  }

  @Test
  void describeGivesTheEntryAndEveryBucketsOffsets() {
    Admin admin = writer.admin();
    TablePath path = TablePath.of("adm.described");
    String id =
        admin.createTable(path, TableDescriptor.logTable(CLICKS, 3).withBucketKey("user_id"));
    Table table = writer.table(path);
    try (AppendWriter append = table.newAppendWriter()) {
      for (long user = 0; user < 10; user++) {
        append.append(user, "https://example.com/" + user, 1_700_000_000_000_000L);
      }
    }

    TableDescription description = reader.admin().describe(path);

    assertThat(description.path()).isEqualTo(path);
    assertThat(description.tableId()).isEqualTo(id);
    assertThat(description.kind()).contains(TableKind.LOG);
    assertThat(description.properties())
        .containsEntry("lakestream.buckets", "3")
        .containsEntry("lakestream.bucket-key", "user_id");
    assertThat(description.schemaJson()).contains("\"user_id\"", "\"url\"", "\"at\"");
    assertThat(description.partitionSpecJson()).isEmpty();
    assertThat(description.buckets().keySet())
        .containsExactly(new TableBucket("", 0), new TableBucket("", 1), new TableBucket("", 2));
    long written = 0;
    for (int bucket = 0; bucket < 3; bucket++) {
      TableDescription.BucketStatus status = description.buckets().get(new TableBucket("", bucket));
      assertThat(status.latestOffset()).isEqualTo(table.latestOffset(bucket));
      assertThat(status.earliestOffset()).isZero();
      // Nothing was tiered: the tiering service of this server has not run a round on the table.
      assertThat(status.tieredOffset()).isEqualTo(-1);
      assertThat(status.lag()).isEqualTo(status.latestOffset());
      written += status.latestOffset();
    }
    assertThat(written).isEqualTo(10);
    assertThat(description.totalLag()).isEqualTo(10);

    catalog.createTable(
        TableIdentifier.of("adm", "plain_described"),
        CLICKS,
        PartitionSpec.builderFor(CLICKS).day("at").build(),
        Map.of("owner", "test"));
    TableDescription plain = reader.admin().describe(TablePath.of("adm.plain_described"));
    assertThat(plain.kind()).isEmpty();
    assertThat(plain.buckets()).isEmpty();
    assertThat(plain.properties()).containsEntry("owner", "test");
    assertThat(plain.partitionSpecJson()).contains("\"day\"", "at_day");

    assertThat(rpcError(() -> admin.describe(TablePath.of("adm.never_made"))).error())
        .isEqualTo(ErrorCode.UNKNOWN_TABLE);
    // As a REST loadTable: a table in a namespace that does not exist does not exist.
    assertThat(rpcError(() -> admin.describe(TablePath.of("nowhere.described"))).error())
        .isEqualTo(ErrorCode.UNKNOWN_TABLE);
    assertThat(
            rpcError(
                    () ->
                        admin.describe(
                            new TablePath("no-such-warehouse", List.of("adm"), "described")))
                .error())
        .isEqualTo(ErrorCode.UNKNOWN_NAMESPACE);
  }

  private static List<Object[]> readRows(Table table, int expected) {
    List<Object[]> rows = new ArrayList<>();
    try (LogScanner scanner = table.newScanner()) {
      for (int bucket = 0; bucket < table.buckets(); bucket++) {
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (rows.size() < expected && System.nanoTime() < deadline) {
        for (ScanBatch batch : scanner.poll(Duration.ofMillis(500))) {
          try (batch) {
            rows.addAll(batch.rows());
          }
        }
      }
    }
    return rows;
  }
}
