package io.lakestream.catalog;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.LocalWarehouse;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarehouseCatalogTest {
  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");

  @TempDir Path directory;
  private JdbcMetadataStore store;
  private WarehouseCatalog catalog;

  @BeforeEach
  void open() {
    store = LocalWarehouse.openStore(directory);
    catalog = LocalWarehouse.catalog(directory.toUri().toString(), store, 16);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /**
   * Creates racing for overlapping locations (the same directory, one inside the other) in
   * different namespaces: exactly one of each group wins, the others are refused with 403.
   */
  @Test
  void concurrentCreatesNeverClaimOverlappingLocations() throws Exception {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    int writers = 8;
    for (int i = 0; i < writers; i++) {
      catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("n" + i), Map.of());
    }
    for (int round = 0; round < 3; round++) {
      String shared = directory.toUri() + "shared-" + round;
      CountDownLatch start = new CountDownLatch(1);
      java.util.List<CompletableFuture<Boolean>> creates = new java.util.ArrayList<>();
      for (int i = 0; i < writers; i++) {
        TableIdentifier identifier = TableIdentifier.of("n" + i, "t" + round);
        // Half claim the directory itself, half a directory inside it.
        String location = i % 2 == 0 ? shared : shared + "/inner";
        creates.add(
            CompletableFuture.supplyAsync(
                () -> {
                  await(start);
                  try {
                    catalog.createTable(
                        identifier, schema, PartitionSpec.unpartitioned(), location, Map.of());
                    return true;
                  } catch (org.apache.iceberg.exceptions.ForbiddenException e) {
                    return false;
                  }
                }));
      }
      start.countDown();
      long created = 0;
      for (CompletableFuture<Boolean> create : creates) {
        if (create.get(60, TimeUnit.SECONDS)) {
          created++;
        }
      }
      assertThat(created).as("round %d", round).isEqualTo(1);
    }
  }

  /** A second commit to the same table waits until the first is done. */
  @Test
  void commitsToOneTableRunOneAtATime() throws Exception {
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () ->
                catalog.commitExclusively(
                    ORDERS,
                    () -> {
                      firstInside.countDown();
                      await(releaseFirst);
                      return null;
                    }));
    assertThat(firstInside.await(10, TimeUnit.SECONDS)).isTrue();

    CountDownLatch secondInside = new CountDownLatch(1);
    Thread second =
        Thread.ofPlatform()
            .start(
                () ->
                    catalog.commitExclusively(
                        ORDERS,
                        () -> {
                          secondInside.countDown();
                          return null;
                        }));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (second.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(second.getState()).isEqualTo(Thread.State.WAITING);
    assertThat(secondInside.getCount()).isEqualTo(1);

    releaseFirst.countDown();
    first.get(10, TimeUnit.SECONDS);
    assertThat(secondInside.await(10, TimeUnit.SECONDS)).isTrue();
    second.join();
  }

  /**
   * The metadata a commit caches for its new file (built from the commit, not read back) is what a
   * reader of the file gets: Iceberg's serialization of both is the file's text, for commits that
   * add snapshots, evolve the schema and the spec, expire snapshots, trim the metadata log and
   * change properties. A multi-table transaction's metadata is checked the same way.
   */
  @Test
  void cachedMetadataOfACommitIsTheMetadataInItsFile() throws Exception {
    catalog.createNamespace(ORDERS.namespace(), Map.of());
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "day", Types.DateType.get()));
    Table table =
        catalog.createTable(
            ORDERS,
            schema,
            PartitionSpec.builderFor(schema).day("day").build(),
            Map.of(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "3"));
    assertCachedIsFile(ORDERS);
    for (int i = 0; i < 5; i++) {
      table
          .newFastAppend()
          .appendFile(
              DataFiles.builder(table.spec())
                  .withPath(table.location() + "/data/data-" + i + ".parquet")
                  .withPartitionPath("day_day=2026-11-0" + (i + 1))
                  .withFileSizeInBytes(100 + i)
                  .withRecordCount(1 + i)
                  .build())
          .commit();
      assertCachedIsFile(ORDERS);
    }
    table.updateSchema().addColumn("note", Types.StringType.get()).commit();
    assertCachedIsFile(ORDERS);
    table.updateSpec().addField("id").commit();
    assertCachedIsFile(ORDERS);
    long oldest = table.history().get(1).timestampMillis();
    table.expireSnapshots().expireOlderThan(oldest).retainLast(1).cleanExpiredFiles(false).commit();
    assertCachedIsFile(ORDERS);
    table.updateProperties().set("owner", "sales").remove("missing").commit();
    assertCachedIsFile(ORDERS);

    Transaction transaction = table.newTransaction();
    transaction.updateProperties().set("stage", "two").commit();
    transaction
        .newFastAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/data-t.parquet")
                .withPartitionPath("day_day=2026-11-09/id=7")
                .withFileSizeInBytes(9)
                .withRecordCount(9)
                .build())
        .commit();
    transaction.commitTransaction();
    assertCachedIsFile(ORDERS);
    assertThat(catalog.loadTable(ORDERS).properties()).containsEntry("stage", "two");
  }

  private void assertCachedIsFile(TableIdentifier identifier) throws Exception {
    TableMetadata cached = catalog.currentTableMetadata(identifier).orElseThrow();
    String location = cached.metadataFileLocation();
    String file = Files.readString(Path.of(URI.create(location).getPath()));
    assertThat(cached.changes()).isEmpty();
    assertThat(TableMetadataParser.toJson(cached)).isEqualTo(file);
    assertThat(TableMetadataParser.toJson(TableMetadataParser.fromJson(location, file)))
        .isEqualTo(file);
    assertThat(catalog.cachedTableJson(location))
        .hasValueSatisfying(bytes -> assertThat(new String(bytes, UTF_8)).isEqualTo(file));
  }

  /**
   * A create checks its location against every other table's, but once it has seen a table's
   * metadata file it does not read it again: in a warehouse of more tables than the metadata cache
   * holds (4 here), creates read no other table's metadata file, where each used to read all of
   * them (a create then cost a file read per table, ~3 creates/s at 1,000 tables). The checks stay
   * those of the tables' current files: a table created afterwards at a location inside one of them
   * is still refused.
   */
  @Test
  void createsDoNotReadOtherTablesMetadataFilesAgain() {
    ReadRecordingFileIO io = new ReadRecordingFileIO();
    WarehouseCatalog small =
        new WarehouseCatalog(
            "main",
            directory.toUri().toString(),
            store,
            io,
            new MetadataCache(4),
            Map.of(),
            CommitValidator.NONE,
            java.util.List.of());
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    small.createNamespace(org.apache.iceberg.catalog.Namespace.of("many"), Map.of());
    java.util.List<String> locations = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      locations.add(small.createTable(TableIdentifier.of("many", "t" + i), schema).location());
    }
    io.reads.clear();
    for (int i = 20; i < 25; i++) {
      small.createTable(TableIdentifier.of("many", "t" + i), schema);
    }
    assertThat(io.reads)
        .as("metadata files of the first 20 tables read by 5 later creates")
        .noneMatch(
            read -> locations.stream().anyMatch(location -> read.startsWith(location + "/")));
    assertThat(
            org.assertj.core.api.Assertions.catchThrowable(
                () ->
                    small.createTable(
                        TableIdentifier.of("many", "inside"),
                        schema,
                        PartitionSpec.unpartitioned(),
                        locations.get(7) + "/nested",
                        Map.of())))
        .isInstanceOf(org.apache.iceberg.exceptions.ForbiddenException.class)
        .hasMessageContaining("many.t7");
  }

  /**
   * With the catalog database this process's alone (SQLite), a create checks its location against
   * the tables near it only: after the first check has read every table's location once, creates do
   * not list the warehouse's tables again, however many there are.
   */
  @Test
  void createsDoNotListEveryTableAgain() {
    CountingStore counting = new CountingStore(store);
    WarehouseCatalog counted = LocalWarehouse.catalog(directory.toUri().toString(), counting, 16);
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    counted.createNamespace(org.apache.iceberg.catalog.Namespace.of("many"), Map.of());
    for (int i = 0; i < 30; i++) {
      counted.createTable(TableIdentifier.of("many", "t" + i), schema);
    }
    int listings = counting.tableListings.get();
    for (int i = 30; i < 40; i++) {
      counted.createTable(TableIdentifier.of("many", "t" + i), schema);
    }
    assertThat(counting.tableListings.get() - listings)
        .as("listings of every table's metadata file by 10 creates")
        .isZero();
    assertThat(counted.listTables(org.apache.iceberg.catalog.Namespace.of("many"))).hasSize(40);
  }

  /**
   * A renamed table keeps its files where they are: its location stays taken under its new name, in
   * the same namespace or another, and a create at or inside it is refused.
   */
  @Test
  void renamedTablesStillHoldTheirLocation() {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("a"), Map.of());
    catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("b"), Map.of());
    // Built once before the rename, so that the rename has to keep it true.
    Table first = catalog.createTable(TableIdentifier.of("a", "first"), schema);
    catalog.createTable(TableIdentifier.of("a", "other"), schema);
    catalog.renameTable(TableIdentifier.of("a", "first"), TableIdentifier.of("b", "moved"));
    for (String location : java.util.List.of(first.location(), first.location() + "/inner")) {
      assertThat(
              org.assertj.core.api.Assertions.catchThrowable(
                  () ->
                      catalog.createTable(
                          TableIdentifier.of("a", "again"),
                          schema,
                          PartitionSpec.unpartitioned(),
                          location,
                          Map.of())))
          .as(location)
          .isInstanceOf(org.apache.iceberg.exceptions.ForbiddenException.class)
          .hasMessageContaining("b.moved");
    }
    // Made without a location where the old name's default directory is taken: a unique one.
    Table again = catalog.createTable(TableIdentifier.of("a", "first"), schema);
    assertThat(again.location()).isNotEqualTo(first.location()).startsWith(first.location() + "-");
  }

  /**
   * A dropped table's location is free again, and so is the old location of a table that moved,
   * while its new location is taken.
   */
  @Test
  void droppedAndMovedTablesFreeTheirOldLocation() {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("c"), Map.of());
    String base = directory.toUri().toString();
    catalog.createTable(
        TableIdentifier.of("c", "dropped"),
        schema,
        PartitionSpec.unpartitioned(),
        base + "place-1",
        Map.of());
    assertThat(catalog.dropTable(TableIdentifier.of("c", "dropped"), false)).isTrue();
    catalog.createTable(
        TableIdentifier.of("c", "reused"),
        schema,
        PartitionSpec.unpartitioned(),
        base + "place-1",
        Map.of());

    Table mover =
        catalog.createTable(
            TableIdentifier.of("c", "mover"),
            schema,
            PartitionSpec.unpartitioned(),
            base + "place-2",
            Map.of());
    mover.updateLocation().setLocation(base + "place-3").commit();
    catalog.createTable(
        TableIdentifier.of("c", "after"),
        schema,
        PartitionSpec.unpartitioned(),
        base + "place-2/inner",
        Map.of());
    assertThat(
            org.assertj.core.api.Assertions.catchThrowable(
                () ->
                    catalog.createTable(
                        TableIdentifier.of("c", "inside"),
                        schema,
                        PartitionSpec.unpartitioned(),
                        base + "place-3/inner",
                        Map.of())))
        .isInstanceOf(org.apache.iceberg.exceptions.ForbiddenException.class)
        .hasMessageContaining("c.mover");
  }

  /** A metadata store counting how often every table's metadata file is listed. */
  private static final class CountingStore implements MetadataStore {
    private final MetadataStore store;
    final java.util.concurrent.atomic.AtomicInteger tableListings =
        new java.util.concurrent.atomic.AtomicInteger();

    CountingStore(MetadataStore store) {
      this.store = store;
    }

    @Override
    public Map<TableIdentifier, String> tableMetadataLocations(String warehouse) {
      tableListings.incrementAndGet();
      return store.tableMetadataLocations(warehouse);
    }

    @Override
    public boolean sharedByProcesses() {
      return store.sharedByProcesses();
    }

    @Override
    public String ensureWarehouse(String warehouse, String location) {
      return store.ensureWarehouse(warehouse, location);
    }

    @Override
    public java.util.Optional<String> warehouseLocation(String warehouse) {
      return store.warehouseLocation(warehouse);
    }

    @Override
    public void createNamespace(
        String warehouse, org.apache.iceberg.catalog.Namespace namespace, Map<String, String> p) {
      store.createNamespace(warehouse, namespace, p);
    }

    @Override
    public java.util.Optional<Map<String, String>> loadNamespace(
        String warehouse, org.apache.iceberg.catalog.Namespace namespace) {
      return store.loadNamespace(warehouse, namespace);
    }

    @Override
    public java.util.List<org.apache.iceberg.catalog.Namespace> listNamespaces(
        String warehouse, org.apache.iceberg.catalog.Namespace parent) {
      return store.listNamespaces(warehouse, parent);
    }

    @Override
    public boolean dropNamespace(String warehouse, org.apache.iceberg.catalog.Namespace namespace) {
      return store.dropNamespace(warehouse, namespace);
    }

    @Override
    public Map<String, String> updateNamespaceProperties(
        String warehouse,
        org.apache.iceberg.catalog.Namespace namespace,
        Map<String, String> updates,
        java.util.Set<String> removals) {
      return store.updateNamespaceProperties(warehouse, namespace, updates, removals);
    }

    @Override
    public java.util.Optional<EntityPointer> loadEntity(
        String warehouse, TableIdentifier identifier) {
      return store.loadEntity(warehouse, identifier);
    }

    @Override
    public java.util.List<TableIdentifier> listEntities(
        String warehouse, org.apache.iceberg.catalog.Namespace namespace, EntityKind kind) {
      return store.listEntities(warehouse, namespace, kind);
    }

    @Override
    public void createEntity(
        String warehouse, TableIdentifier identifier, EntityKind kind, String metadataLocation) {
      store.createEntity(warehouse, identifier, kind, metadataLocation);
    }

    @Override
    public void swap(String warehouse, java.util.List<PointerSwap> swaps) {
      store.swap(warehouse, swaps);
    }

    @Override
    public java.util.Optional<EntityPointer> dropEntity(
        String warehouse, TableIdentifier identifier, EntityKind kind) {
      return store.dropEntity(warehouse, identifier, kind);
    }

    @Override
    public void renameEntity(
        String warehouse, TableIdentifier from, TableIdentifier to, EntityKind kind) {
      store.renameEntity(warehouse, from, to, kind);
    }

    @Override
    public <T> T underPlacementLock(String warehouse, java.util.function.Supplier<T> work) {
      return store.underPlacementLock(warehouse, work);
    }

    @Override
    public void close() {
      store.close();
    }
  }

  /** Local files, remembering every location opened for reading. */
  private static final class ReadRecordingFileIO implements org.apache.iceberg.io.FileIO {
    private final LocalFileIO files = new LocalFileIO();
    final java.util.Queue<String> reads = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Override
    public org.apache.iceberg.io.InputFile newInputFile(String location) {
      reads.add(location);
      return files.newInputFile(location);
    }

    @Override
    public org.apache.iceberg.io.OutputFile newOutputFile(String location) {
      return files.newOutputFile(location);
    }

    @Override
    public void deleteFile(String location) {
      files.deleteFile(location);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
