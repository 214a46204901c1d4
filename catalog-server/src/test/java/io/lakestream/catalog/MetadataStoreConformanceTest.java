package io.lakestream.catalog;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.ServiceFailureException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link MetadataStore} contract, run against every implementation by a subclass that says how
 * to create an empty database. Each test gets its own database; {@link Database#open()} may be
 * called again to get a second store on it, as a second server process would.
 */
abstract class MetadataStoreConformanceTest {
  private static final String WAREHOUSE = "main";
  private static final Namespace SALES = Namespace.of("sales");
  private static final Namespace ARCHIVE = Namespace.of("archive");
  private static final TableIdentifier ORDERS = TableIdentifier.of(SALES, "orders");
  private static final TableIdentifier REVENUE = TableIdentifier.of(SALES, "revenue");

  /** An empty database; every store opened on it shares its state. */
  protected interface Database {
    MetadataStore open();
  }

  /** Creates an empty database for one test. */
  protected abstract Database createDatabase() throws Exception;

  /**
   * Whether the store answers {@link MetadataStore#loadEntityWithoutWaiting} for entries that exist
   * (a database in the process), rather than always handing the read to {@link
   * MetadataStore#loadEntity}.
   */
  protected abstract boolean readsWithoutWaiting();

  private final List<MetadataStore> opened = new ArrayList<>();
  private Database database;
  private MetadataStore store;

  @BeforeEach
  void openStore() throws Exception {
    database = createDatabase();
    store = open(database);
    store.ensureWarehouse(WAREHOUSE, "file:/lake/main");
  }

  @AfterEach
  void closeStores() {
    opened.forEach(MetadataStore::close);
  }

  private MetadataStore open(Database on) {
    MetadataStore result = on.open();
    opened.add(result);
    return result;
  }

  // Warehouses

  @Test
  void ensureWarehouseKeepsTheFirstLocation() {
    assertThat(store.warehouseLocation("lake")).isEmpty();
    assertThat(store.ensureWarehouse("lake", "file:/first")).isEqualTo("file:/first");
    assertThat(store.ensureWarehouse("lake", "file:/second")).isEqualTo("file:/first");
    assertThat(store.warehouseLocation("lake")).contains("file:/first");
    assertThat(store.warehouseLocation(WAREHOUSE)).contains("file:/lake/main");
  }

  @Test
  void warehousesDoNotShareNamespacesOrEntities() {
    store.ensureWarehouse("other", "file:/other");
    store.createNamespace(WAREHOUSE, SALES, Map.of("owner", "main"));
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/main/orders.json");

    assertThat(store.loadNamespace("other", SALES)).isEmpty();
    assertThat(store.loadEntity("other", ORDERS)).isEmpty();
    store.createNamespace("other", SALES, Map.of("owner", "other"));
    store.createEntity("other", ORDERS, EntityKind.VIEW, "file:/other/orders.json");

    assertThat(store.loadNamespace(WAREHOUSE, SALES)).contains(Map.of("owner", "main"));
    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/main/orders.json", null));
    assertThat(store.listEntities("other", SALES, EntityKind.TABLE)).isEmpty();
  }

  // Namespaces

  @Test
  void createdNamespaceHasItsProperties() {
    assertThat(store.loadNamespace(WAREHOUSE, SALES)).isEmpty();
    store.createNamespace(WAREHOUSE, SALES, Map.of("owner", "finance", "tier", "gold"));
    store.createNamespace(WAREHOUSE, ARCHIVE, Map.of());

    assertThat(store.loadNamespace(WAREHOUSE, SALES))
        .contains(Map.of("owner", "finance", "tier", "gold"));
    assertThat(store.loadNamespace(WAREHOUSE, ARCHIVE)).contains(Map.of());
  }

  @Test
  void createExistingNamespaceFailsAndKeepsProperties() {
    store.createNamespace(WAREHOUSE, SALES, Map.of("owner", "finance"));

    assertThatThrownBy(() -> store.createNamespace(WAREHOUSE, SALES, Map.of("owner", "intruder")))
        .isInstanceOf(AlreadyExistsException.class);
    assertThat(store.loadNamespace(WAREHOUSE, SALES)).contains(Map.of("owner", "finance"));
  }

  @Test
  void createNamespaceWithoutParentFails() {
    Namespace orphan = Namespace.of("missing", "child");

    assertThatThrownBy(() -> store.createNamespace(WAREHOUSE, orphan, Map.of()))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThat(store.loadNamespace(WAREHOUSE, orphan)).isEmpty();
    assertThat(store.listNamespaces(WAREHOUSE, Namespace.empty())).isEmpty();
  }

  @Test
  void listNamespacesReturnsDirectChildrenSorted() {
    store.createNamespace(WAREHOUSE, Namespace.of("b"), Map.of());
    store.createNamespace(WAREHOUSE, Namespace.of("a"), Map.of());
    store.createNamespace(WAREHOUSE, Namespace.of("a", "y"), Map.of());
    store.createNamespace(WAREHOUSE, Namespace.of("a", "x"), Map.of());
    store.createNamespace(WAREHOUSE, Namespace.of("a", "x", "deep"), Map.of());

    assertThat(store.listNamespaces(WAREHOUSE, Namespace.empty()))
        .containsExactly(Namespace.of("a"), Namespace.of("b"));
    assertThat(store.listNamespaces(WAREHOUSE, Namespace.of("a")))
        .containsExactly(Namespace.of("a", "x"), Namespace.of("a", "y"));
    assertThat(store.listNamespaces(WAREHOUSE, Namespace.of("b"))).isEmpty();
    assertThatThrownBy(() -> store.listNamespaces(WAREHOUSE, Namespace.of("c")))
        .isInstanceOf(NoSuchNamespaceException.class);
  }

  /**
   * The REST layer pages listings by comparing names with {@link String#compareTo}, so "sorted"
   * must mean that order whatever the database's collation: upper case before lower case, and
   * characters outside the Basic Multilingual Plane (UTF-16 surrogates) before U+E000..U+FFFF.
   */
  @Test
  void listingsAreSortedAsJavaStrings() {
    List<String> names = List.of("zeta", "Zeta", "alpha", "Alpha", "\uFF21", "\uD83D\uDE00", "é");
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    for (String name : names) {
      store.createNamespace(WAREHOUSE, Namespace.of(name), Map.of());
      store.createEntity(WAREHOUSE, TableIdentifier.of(SALES, name), EntityKind.TABLE, "file:/t");
    }
    List<String> topLevel = new ArrayList<>(names);
    topLevel.add(SALES.level(0));

    assertThat(store.listNamespaces(WAREHOUSE, Namespace.empty()))
        .map(namespace -> namespace.level(0))
        .containsExactlyElementsOf(topLevel.stream().sorted().toList());
    assertThat(store.listEntities(WAREHOUSE, SALES, EntityKind.TABLE))
        .map(TableIdentifier::name)
        .containsExactlyElementsOf(names.stream().sorted().toList());
  }

  @Test
  void dropEmptyNamespace() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());

    assertThat(store.dropNamespace(WAREHOUSE, SALES)).isTrue();
    assertThat(store.loadNamespace(WAREHOUSE, SALES)).isEmpty();
    assertThat(store.listNamespaces(WAREHOUSE, Namespace.empty())).isEmpty();
    assertThat(store.dropNamespace(WAREHOUSE, SALES)).isFalse();
  }

  @Test
  void dropNamespaceHoldingAnythingFails() {
    Namespace child = Namespace.of("sales", "emea");
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createNamespace(WAREHOUSE, child, Map.of());
    assertThatThrownBy(() -> store.dropNamespace(WAREHOUSE, SALES))
        .isInstanceOf(NamespaceNotEmptyException.class);

    store.dropNamespace(WAREHOUSE, child);
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders.json");
    assertThatThrownBy(() -> store.dropNamespace(WAREHOUSE, SALES))
        .isInstanceOf(NamespaceNotEmptyException.class);

    store.dropEntity(WAREHOUSE, ORDERS, EntityKind.TABLE);
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.VIEW, "file:/revenue.json");
    assertThatThrownBy(() -> store.dropNamespace(WAREHOUSE, SALES))
        .isInstanceOf(NamespaceNotEmptyException.class);
    assertThat(store.loadNamespace(WAREHOUSE, SALES)).isPresent();
    assertThat(store.loadEntity(WAREHOUSE, REVENUE)).isPresent();

    store.dropEntity(WAREHOUSE, REVENUE, EntityKind.VIEW);
    assertThat(store.dropNamespace(WAREHOUSE, SALES)).isTrue();
  }

  @Test
  void updateNamespacePropertiesSetsAndRemovesInOneCall() {
    store.createNamespace(WAREHOUSE, SALES, Map.of("a", "1", "b", "2", "c", "3"));

    Map<String, String> after =
        store.updateNamespaceProperties(
            WAREHOUSE, SALES, Map.of("b", "20", "d", "4"), Set.of("c", "absent"));

    assertThat(after).isEqualTo(Map.of("a", "1", "b", "20", "d", "4"));
    assertThat(store.loadNamespace(WAREHOUSE, SALES)).contains(after);
    assertThatThrownBy(
            () -> store.updateNamespaceProperties(WAREHOUSE, ARCHIVE, Map.of("a", "1"), Set.of()))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThat(store.loadNamespace(WAREHOUSE, ARCHIVE)).isEmpty();
  }

  // Tables and views

  @Test
  void createdEntitiesPointAtTheirFirstMetadata() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.VIEW, "file:/revenue/v1.json");

    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, REVENUE))
        .contains(new EntityPointer(EntityKind.VIEW, "file:/revenue/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, TableIdentifier.of(SALES, "missing"))).isEmpty();
  }

  @Test
  void tablesAndViewsShareOneNameSpace() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.VIEW, "file:/revenue/v1.json");

    assertThatThrownBy(
            () -> store.createEntity(WAREHOUSE, ORDERS, EntityKind.VIEW, "file:/view.json"))
        .isInstanceOf(AlreadyExistsException.class);
    assertThatThrownBy(
            () -> store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/again.json"))
        .isInstanceOf(AlreadyExistsException.class);
    assertThatThrownBy(
            () -> store.createEntity(WAREHOUSE, REVENUE, EntityKind.TABLE, "file:/table.json"))
        .isInstanceOf(AlreadyExistsException.class);

    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, REVENUE))
        .contains(new EntityPointer(EntityKind.VIEW, "file:/revenue/v1.json", null));
  }

  @Test
  void createEntityNeedsItsNamespace() {
    assertThatThrownBy(
            () -> store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders.json"))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThatThrownBy(
            () ->
                store.createEntity(
                    WAREHOUSE, TableIdentifier.of("top"), EntityKind.VIEW, "file:/top.json"))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThat(store.loadEntity(WAREHOUSE, ORDERS)).isEmpty();
    assertThat(store.loadEntity(WAREHOUSE, TableIdentifier.of("top"))).isEmpty();
  }

  @Test
  void listEntitiesByKindSorted() {
    Namespace emea = Namespace.of("sales", "emea");
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createNamespace(WAREHOUSE, emea, Map.of());
    store.createEntity(WAREHOUSE, TableIdentifier.of(SALES, "b"), EntityKind.TABLE, "file:/b");
    store.createEntity(WAREHOUSE, TableIdentifier.of(SALES, "a"), EntityKind.TABLE, "file:/a");
    store.createEntity(WAREHOUSE, TableIdentifier.of(SALES, "v2"), EntityKind.VIEW, "file:/v2");
    store.createEntity(WAREHOUSE, TableIdentifier.of(SALES, "v1"), EntityKind.VIEW, "file:/v1");
    store.createEntity(WAREHOUSE, TableIdentifier.of(emea, "c"), EntityKind.TABLE, "file:/c");

    assertThat(store.listEntities(WAREHOUSE, SALES, EntityKind.TABLE))
        .containsExactly(TableIdentifier.of(SALES, "a"), TableIdentifier.of(SALES, "b"));
    assertThat(store.listEntities(WAREHOUSE, SALES, EntityKind.VIEW))
        .containsExactly(TableIdentifier.of(SALES, "v1"), TableIdentifier.of(SALES, "v2"));
    assertThat(store.listEntities(WAREHOUSE, emea, EntityKind.TABLE))
        .containsExactly(TableIdentifier.of(emea, "c"));
    assertThat(store.listEntities(WAREHOUSE, emea, EntityKind.VIEW)).isEmpty();
    assertThatThrownBy(() -> store.listEntities(WAREHOUSE, ARCHIVE, EntityKind.TABLE))
        .isInstanceOf(NoSuchNamespaceException.class);
  }

  @Test
  void swapMovesThePointerAndRemembersThePreviousOne() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");

    store.swap(
        WAREHOUSE,
        List.of(
            new PointerSwap(
                ORDERS, EntityKind.TABLE, "file:/orders/v1.json", "file:/orders/v2.json")));

    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(
            new EntityPointer(EntityKind.TABLE, "file:/orders/v2.json", "file:/orders/v1.json"));
  }

  @Test
  void swapFromStaleLocationFailsAndChangesNothing() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    store.swap(
        WAREHOUSE,
        List.of(new PointerSwap(ORDERS, EntityKind.TABLE, "file:/orders/v1.json", "file:/v2")));

    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(
                        new PointerSwap(
                            ORDERS, EntityKind.TABLE, "file:/orders/v1.json", "file:/v3"))))
        .isInstanceOf(CommitFailedException.class);
    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/v2", "file:/orders/v1.json"));
  }

  @Test
  void swapOfMissingEntryOrOtherKindFails() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.VIEW, "file:/revenue/v1.json");

    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(
                        new PointerSwap(
                            REVENUE, EntityKind.TABLE, "file:/revenue/v1.json", "file:/v2"))))
        .isInstanceOf(CommitFailedException.class);
    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(new PointerSwap(ORDERS, EntityKind.TABLE, "file:/v1", "file:/v2"))))
        .isInstanceOf(CommitFailedException.class);
    assertThat(store.loadEntity(WAREHOUSE, REVENUE))
        .contains(new EntityPointer(EntityKind.VIEW, "file:/revenue/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, ORDERS)).isEmpty();
  }

  @Test
  void multiEntrySwapAppliesAllOrNothing() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.TABLE, "file:/revenue/v1.json");

    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(
                        new PointerSwap(
                            ORDERS, EntityKind.TABLE, "file:/orders/v1.json", "file:/orders/v2"),
                        new PointerSwap(
                            REVENUE, EntityKind.TABLE, "file:/stale.json", "file:/revenue/v2"))))
        .isInstanceOf(CommitFailedException.class);
    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, REVENUE))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/revenue/v1.json", null));

    store.swap(
        WAREHOUSE,
        List.of(
            new PointerSwap(ORDERS, EntityKind.TABLE, "file:/orders/v1.json", "file:/orders/v2"),
            new PointerSwap(
                REVENUE, EntityKind.TABLE, "file:/revenue/v1.json", "file:/revenue/v2")));
    assertThat(store.loadEntity(WAREHOUSE, ORDERS).map(EntityPointer::metadataLocation))
        .contains("file:/orders/v2");
    assertThat(store.loadEntity(WAREHOUSE, REVENUE).map(EntityPointer::metadataLocation))
        .contains("file:/revenue/v2");
  }

  @Test
  void multiEntrySwapCreatesEntriesAllOrNothing() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    PointerSwap moveOrders =
        new PointerSwap(ORDERS, EntityKind.TABLE, "file:/orders/v1.json", "file:/orders/v2");

    // A name taken by a table or a view fails the whole swap.
    store.createEntity(WAREHOUSE, TableIdentifier.of(SALES, "taken"), EntityKind.VIEW, "file:/v");
    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(
                        moveOrders,
                        PointerSwap.create(
                            TableIdentifier.of(SALES, "taken"), EntityKind.TABLE, "file:/t"))))
        .isInstanceOf(CommitFailedException.class);
    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(
                        moveOrders,
                        PointerSwap.create(ORDERS, EntityKind.TABLE, "file:/orders/other"))))
        .isInstanceOf(CommitFailedException.class);
    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(
                        moveOrders,
                        PointerSwap.create(
                            TableIdentifier.of(ARCHIVE, "old"), EntityKind.TABLE, "file:/o"))))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, TableIdentifier.of(ARCHIVE, "old"))).isEmpty();

    store.swap(
        WAREHOUSE,
        List.of(moveOrders, PointerSwap.create(REVENUE, EntityKind.TABLE, "file:/revenue/v1")));
    assertThat(store.loadEntity(WAREHOUSE, ORDERS).map(EntityPointer::metadataLocation))
        .contains("file:/orders/v2");
    assertThat(store.loadEntity(WAREHOUSE, REVENUE))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/revenue/v1", null));
    assertThat(store.listEntities(WAREHOUSE, SALES, EntityKind.TABLE))
        .containsExactly(ORDERS, REVENUE);
  }

  /**
   * A store whose database cannot be reached cannot know whether a change happened (Iceberg's
   * commit-state-unknown), so callers keep the files the change refers to.
   */
  @Test
  void changesOnAnUnreachableDatabaseHaveAnUnknownOutcome() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    MetadataStore unreachable = open(database);
    unreachable.close();

    assertThatThrownBy(
            () ->
                unreachable.swap(
                    WAREHOUSE,
                    List.of(
                        new PointerSwap(
                            ORDERS, EntityKind.TABLE, "file:/orders/v1.json", "file:/v2"))))
        .isInstanceOf(CommitStateUnknownException.class);
    assertThatThrownBy(
            () -> unreachable.createEntity(WAREHOUSE, REVENUE, EntityKind.TABLE, "file:/r"))
        .isInstanceOf(CommitStateUnknownException.class);
    assertThatThrownBy(() -> unreachable.createNamespace(WAREHOUSE, ARCHIVE, Map.of()))
        .isInstanceOf(CommitStateUnknownException.class);
    assertThatThrownBy(() -> unreachable.loadEntity(WAREHOUSE, ORDERS))
        .isInstanceOf(ServiceFailureException.class);
    assertThat(store.loadEntity(WAREHOUSE, ORDERS).map(EntityPointer::metadataLocation))
        .contains("file:/orders/v1.json");
  }

  @Test
  void dropEntityOfItsKindOnly() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");

    assertThat(store.dropEntity(WAREHOUSE, ORDERS, EntityKind.VIEW)).isEmpty();
    assertThat(store.loadEntity(WAREHOUSE, ORDERS)).isPresent();
    assertThat(store.dropEntity(WAREHOUSE, ORDERS, EntityKind.TABLE))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, ORDERS)).isEmpty();
    assertThat(store.listEntities(WAREHOUSE, SALES, EntityKind.TABLE)).isEmpty();
    assertThat(store.dropEntity(WAREHOUSE, ORDERS, EntityKind.TABLE)).isEmpty();
  }

  @Test
  void renameMovesTablesAndViewsAcrossNamespaces() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createNamespace(WAREHOUSE, ARCHIVE, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.VIEW, "file:/revenue/v1.json");
    TableIdentifier archivedOrders = TableIdentifier.of(ARCHIVE, "orders_2024");
    TableIdentifier archivedRevenue = TableIdentifier.of(ARCHIVE, "revenue_2024");

    store.renameEntity(WAREHOUSE, ORDERS, archivedOrders, EntityKind.TABLE);
    store.renameEntity(WAREHOUSE, REVENUE, archivedRevenue, EntityKind.VIEW);

    assertThat(store.loadEntity(WAREHOUSE, ORDERS)).isEmpty();
    assertThat(store.loadEntity(WAREHOUSE, REVENUE)).isEmpty();
    assertThat(store.loadEntity(WAREHOUSE, archivedOrders))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, archivedRevenue))
        .contains(new EntityPointer(EntityKind.VIEW, "file:/revenue/v1.json", null));
    assertThat(store.listEntities(WAREHOUSE, SALES, EntityKind.TABLE)).isEmpty();
    assertThat(store.listEntities(WAREHOUSE, ARCHIVE, EntityKind.TABLE))
        .containsExactly(archivedOrders);
    assertThat(store.listEntities(WAREHOUSE, ARCHIVE, EntityKind.VIEW))
        .containsExactly(archivedRevenue);
    store.swap(
        WAREHOUSE,
        List.of(
            new PointerSwap(archivedOrders, EntityKind.TABLE, "file:/orders/v1.json", "file:/v2")));
    assertThat(store.dropNamespace(WAREHOUSE, SALES)).isTrue();
  }

  @Test
  void renameOntoAnExistingNameFails() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.VIEW, "file:/revenue/v1.json");
    TableIdentifier other = TableIdentifier.of(SALES, "other");
    store.createEntity(WAREHOUSE, other, EntityKind.TABLE, "file:/other/v1.json");

    assertThatThrownBy(() -> store.renameEntity(WAREHOUSE, ORDERS, other, EntityKind.TABLE))
        .isInstanceOf(AlreadyExistsException.class);
    assertThatThrownBy(() -> store.renameEntity(WAREHOUSE, ORDERS, REVENUE, EntityKind.TABLE))
        .isInstanceOf(AlreadyExistsException.class);
    assertThatThrownBy(() -> store.renameEntity(WAREHOUSE, REVENUE, ORDERS, EntityKind.VIEW))
        .isInstanceOf(AlreadyExistsException.class);

    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, REVENUE))
        .contains(new EntityPointer(EntityKind.VIEW, "file:/revenue/v1.json", null));
    assertThat(store.loadEntity(WAREHOUSE, other))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/other/v1.json", null));
  }

  @Test
  void renameOfMissingSourceNamesItsKind() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.VIEW, "file:/revenue/v1.json");
    TableIdentifier target = TableIdentifier.of(SALES, "target");

    assertThatThrownBy(
            () ->
                store.renameEntity(
                    WAREHOUSE, TableIdentifier.of(SALES, "missing"), target, EntityKind.TABLE))
        .isInstanceOf(NoSuchTableException.class);
    assertThatThrownBy(
            () ->
                store.renameEntity(
                    WAREHOUSE, TableIdentifier.of(SALES, "missing"), target, EntityKind.VIEW))
        .isInstanceOf(NoSuchViewException.class);
    assertThatThrownBy(() -> store.renameEntity(WAREHOUSE, REVENUE, target, EntityKind.TABLE))
        .isInstanceOf(NoSuchTableException.class);
    assertThatThrownBy(() -> store.renameEntity(WAREHOUSE, ORDERS, target, EntityKind.VIEW))
        .isInstanceOf(NoSuchViewException.class);
    assertThat(store.loadEntity(WAREHOUSE, target)).isEmpty();
  }

  @Test
  void renameIntoMissingNamespaceFails() {
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/orders/v1.json");

    assertThatThrownBy(
            () ->
                store.renameEntity(
                    WAREHOUSE, ORDERS, TableIdentifier.of(ARCHIVE, "orders"), EntityKind.TABLE))
        .isInstanceOf(NoSuchNamespaceException.class);
    assertThat(store.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/orders/v1.json", null));
  }

  @Test
  void namesAreStoredExactlyAsGiven() {
    Namespace dotted = Namespace.of("a.b");
    Namespace nested = Namespace.of("a", "b");
    Namespace unicode = Namespace.of("données", "数据");
    Namespace quoted = Namespace.of("it's", "\"quoted\"", "back\\slash", "50%_off");
    Namespace upper = Namespace.of("Sales");
    store.createNamespace(WAREHOUSE, dotted, Map.of("kind", "dotted"));
    store.createNamespace(WAREHOUSE, Namespace.of("a"), Map.of());
    store.createNamespace(WAREHOUSE, nested, Map.of("kind", "nested"));
    createWithParents(unicode);
    createWithParents(quoted);
    store.createNamespace(WAREHOUSE, SALES, Map.of("case", "lower"));
    store.createNamespace(WAREHOUSE, upper, Map.of("case", "upper"));

    assertThat(store.loadNamespace(WAREHOUSE, dotted)).contains(Map.of("kind", "dotted"));
    assertThat(store.loadNamespace(WAREHOUSE, nested)).contains(Map.of("kind", "nested"));
    assertThat(store.loadNamespace(WAREHOUSE, SALES)).contains(Map.of("case", "lower"));
    assertThat(store.loadNamespace(WAREHOUSE, upper)).contains(Map.of("case", "upper"));
    assertThat(store.listNamespaces(WAREHOUSE, Namespace.of("a"))).containsExactly(nested);
    assertThat(store.listNamespaces(WAREHOUSE, Namespace.of("données"))).containsExactly(unicode);
    assertThat(store.listNamespaces(WAREHOUSE, Namespace.of("it's", "\"quoted\"", "back\\slash")))
        .containsExactly(quoted);

    List<TableIdentifier> entities =
        List.of(
            TableIdentifier.of(dotted, "x.y"),
            TableIdentifier.of(nested, "x.y"),
            TableIdentifier.of(unicode, "表 \uD83D\uDE00"),
            TableIdentifier.of(quoted, "o'brien \"q\" ; DROP TABLE x; --"),
            TableIdentifier.of(SALES, "Orders"),
            TableIdentifier.of(SALES, "orders"));
    for (TableIdentifier identifier : entities) {
      store.createEntity(WAREHOUSE, identifier, EntityKind.TABLE, "file:/" + identifier);
    }
    for (TableIdentifier identifier : entities) {
      assertThat(store.loadEntity(WAREHOUSE, identifier).map(EntityPointer::metadataLocation))
          .contains("file:/" + identifier);
      assertThat(store.listEntities(WAREHOUSE, identifier.namespace(), EntityKind.TABLE))
          .contains(identifier);
    }
    assertThat(store.listEntities(WAREHOUSE, SALES, EntityKind.TABLE))
        .containsExactly(TableIdentifier.of(SALES, "Orders"), TableIdentifier.of(SALES, "orders"));
    assertThat(store.listEntities(WAREHOUSE, dotted, EntityKind.TABLE))
        .containsExactly(TableIdentifier.of(dotted, "x.y"));

    TableIdentifier renamed = TableIdentifier.of(unicode, "it's \"renamed\"");
    store.renameEntity(WAREHOUSE, entities.get(3), renamed, EntityKind.TABLE);
    assertThat(store.loadEntity(WAREHOUSE, renamed).map(EntityPointer::metadataLocation))
        .contains("file:/" + entities.get(3));
  }

  private void createWithParents(Namespace namespace) {
    for (int length = 1; length <= namespace.length(); length++) {
      String[] levels = new String[length];
      System.arraycopy(namespace.levels(), 0, levels, 0, length);
      store.createNamespace(WAREHOUSE, Namespace.of(levels), Map.of());
    }
  }

  // Concurrency and sharing

  /**
   * Writers race to extend one chain of metadata files by compare-and-swap, retrying from the
   * current pointer when they lose. Every base must have exactly one successor and the chain must
   * end at the total number of successful swaps: a lost update would leave it shorter.
   */
  @Test
  void concurrentSwapsHaveOneWinnerPerVersionAndLoseNoUpdate() throws Exception {
    int threads = 8;
    int incrementsPerThread = 50;
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, version(0, "creator"));
    Set<String> replaced = ConcurrentHashMap.newKeySet();
    AtomicInteger conflicts = new AtomicInteger();

    concurrently(
        threads,
        thread -> {
          for (int done = 0; done < incrementsPerThread; ) {
            String current = store.loadEntity(WAREHOUSE, ORDERS).orElseThrow().metadataLocation();
            String next = version(versionOf(current) + 1, "writer-" + thread);
            try {
              store.swap(
                  WAREHOUSE, List.of(new PointerSwap(ORDERS, EntityKind.TABLE, current, next)));
            } catch (CommitFailedException e) {
              conflicts.incrementAndGet();
              continue;
            }
            assertThat(replaced.add(current)).as("second winner from %s", current).isTrue();
            done++;
          }
          return null;
        });

    EntityPointer last = store.loadEntity(WAREHOUSE, ORDERS).orElseThrow();
    assertThat(versionOf(last.metadataLocation())).isEqualTo(threads * incrementsPerThread);
    assertThat(versionOf(last.previousMetadataLocation()))
        .isEqualTo(threads * incrementsPerThread - 1);
    assertThat(replaced).hasSize(threads * incrementsPerThread);
    System.out.printf(
        "%s: %d swaps, %d conflicts%n",
        getClass().getSimpleName(), threads * incrementsPerThread, conflicts.get());
  }

  /**
   * Two writers swap the same two entries together, listing them in opposite orders. Row-locking
   * databases must not deadlock on that; every swap either applies to both entries or fails.
   */
  @Test
  void multiEntrySwapsListedInOppositeOrdersDoNotDeadlock() throws Exception {
    int swapsPerThread = 50;
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, version(0, "creator"));
    store.createEntity(WAREHOUSE, REVENUE, EntityKind.TABLE, version(0, "creator"));

    concurrently(
        2,
        thread -> {
          for (int done = 0; done < swapsPerThread; ) {
            List<PointerSwap> swaps = new ArrayList<>();
            for (TableIdentifier identifier : List.of(ORDERS, REVENUE)) {
              String current =
                  store.loadEntity(WAREHOUSE, identifier).orElseThrow().metadataLocation();
              String next = version(versionOf(current) + 1, "writer-" + thread);
              swaps.add(new PointerSwap(identifier, EntityKind.TABLE, current, next));
            }
            try {
              store.swap(WAREHOUSE, thread == 0 ? swaps : swaps.reversed());
              done++;
            } catch (CommitFailedException e) {
              // Lost the race (or read the two pointers across another writer's swap): retry.
            }
          }
          return null;
        });

    for (TableIdentifier identifier : List.of(ORDERS, REVENUE)) {
      assertThat(
              versionOf(store.loadEntity(WAREHOUSE, identifier).orElseThrow().metadataLocation()))
          .as("version of %s", identifier)
          .isEqualTo(2 * swapsPerThread);
    }
  }

  private static String version(int version, String writer) {
    return "file:/lake/main/metadata/v" + version + "-" + writer + ".json";
  }

  private static int versionOf(String location) {
    String file = location.substring(location.lastIndexOf("/v") + 2);
    return Integer.parseInt(file.substring(0, file.indexOf('-')));
  }

  @Test
  void concurrentPropertyUpdatesLoseNone() throws Exception {
    int threads = 8;
    int keysPerThread = 20;
    store.createNamespace(WAREHOUSE, SALES, Map.of());

    concurrently(
        threads,
        thread -> {
          for (int key = 0; key < keysPerThread; key++) {
            store.updateNamespaceProperties(
                WAREHOUSE, SALES, Map.of("key-" + thread + "-" + key, "value"), Set.of());
          }
          return null;
        });

    assertThat(store.loadNamespace(WAREHOUSE, SALES).orElseThrow())
        .hasSize(threads * keysPerThread);
  }

  @Test
  void concurrentCreatesOfOneNameHaveOneWinner() throws Exception {
    int threads = 6;
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    for (int round = 0; round < 20; round++) {
      TableIdentifier identifier = TableIdentifier.of(SALES, "table_" + round);
      Namespace namespace = Namespace.of("namespace_" + round);

      List<Class<?>> entityOutcomes =
          concurrently(
              threads,
              thread ->
                  outcome(
                      () ->
                          store.createEntity(
                              WAREHOUSE,
                              identifier,
                              thread % 2 == 0 ? EntityKind.TABLE : EntityKind.VIEW,
                              "file:/" + thread)));
      List<Class<?>> namespaceOutcomes =
          concurrently(
              threads,
              thread -> outcome(() -> store.createNamespace(WAREHOUSE, namespace, Map.of())));

      assertThat(entityOutcomes).filteredOn(outcome -> outcome == Void.class).hasSize(1);
      assertThat(entityOutcomes)
          .filteredOn(outcome -> outcome != Void.class)
          .containsOnly(AlreadyExistsException.class);
      assertThat(namespaceOutcomes).filteredOn(outcome -> outcome == Void.class).hasSize(1);
      assertThat(namespaceOutcomes)
          .filteredOn(outcome -> outcome != Void.class)
          .containsOnly(AlreadyExistsException.class);
    }
  }

  @Test
  void concurrentRenamesAndDropsOfOneEntryHaveOneWinner() throws Exception {
    int threads = 4;
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    for (int round = 0; round < 20; round++) {
      TableIdentifier renamed = TableIdentifier.of(SALES, "renamed_" + round);
      TableIdentifier dropped = TableIdentifier.of(SALES, "dropped_" + round);
      store.createEntity(WAREHOUSE, renamed, EntityKind.TABLE, "file:/renamed");
      store.createEntity(WAREHOUSE, dropped, EntityKind.TABLE, "file:/dropped");

      List<Class<?>> renames =
          concurrently(
              threads,
              thread ->
                  outcome(
                      () ->
                          store.renameEntity(
                              WAREHOUSE,
                              renamed,
                              TableIdentifier.of(SALES, renamed.name() + "_to_" + thread),
                              EntityKind.TABLE)));
      List<Boolean> drops =
          concurrently(
              threads,
              thread -> store.dropEntity(WAREHOUSE, dropped, EntityKind.TABLE).isPresent());

      assertThat(renames).filteredOn(outcome -> outcome == Void.class).hasSize(1);
      assertThat(renames)
          .filteredOn(outcome -> outcome != Void.class)
          .containsOnly(NoSuchTableException.class);
      int winner = renames.indexOf(Void.class);
      for (int thread = 0; thread < threads; thread++) {
        TableIdentifier target = TableIdentifier.of(SALES, renamed.name() + "_to_" + thread);
        assertThat(store.loadEntity(WAREHOUSE, target).isPresent()).isEqualTo(thread == winner);
      }
      assertThat(drops).containsOnlyOnce(true);
    }
  }

  /**
   * Creating in a namespace while another writer drops it: either the drop wins and the create
   * finds no namespace, or the create wins and the namespace is not empty. Never both.
   */
  @Test
  void concurrentCreateAndDropOfNamespaceLeaveNoOrphans() throws Exception {
    for (int round = 0; round < 30; round++) {
      Namespace namespace = Namespace.of("volatile_" + round);
      store.createNamespace(WAREHOUSE, namespace, Map.of());
      TableIdentifier table = TableIdentifier.of(namespace, "t");
      Namespace child = Namespace.of("volatile_" + round, "child");

      List<Object> outcomes =
          concurrently(
              3,
              thread ->
                  switch (thread) {
                    case 0 -> outcome(() -> store.dropNamespace(WAREHOUSE, namespace));
                    case 1 ->
                        outcome(
                            () ->
                                store.createEntity(WAREHOUSE, table, EntityKind.TABLE, "file:/t"));
                    default -> outcome(() -> store.createNamespace(WAREHOUSE, child, Map.of()));
                  });

      boolean namespaceExists = store.loadNamespace(WAREHOUSE, namespace).isPresent();
      boolean tableExists = store.loadEntity(WAREHOUSE, table).isPresent();
      boolean childExists = store.loadNamespace(WAREHOUSE, child).isPresent();
      if (!namespaceExists) {
        assertThat(tableExists).as("table of dropped namespace, round %s", round).isFalse();
        assertThat(childExists).as("child of dropped namespace, round %s", round).isFalse();
        assertThat(outcomes.get(1)).isEqualTo(NoSuchNamespaceException.class);
        assertThat(outcomes.get(2)).isEqualTo(NoSuchNamespaceException.class);
      } else {
        assertThat(outcomes)
            .containsExactly(NamespaceNotEmptyException.class, Void.class, Void.class);
        assertThat(tableExists).isTrue();
        assertThat(childExists).isTrue();
      }
    }
  }

  @Test
  void storesOnOneDatabaseSeeEachOthersWrites() {
    MetadataStore other = open(database);
    store.createNamespace(WAREHOUSE, SALES, Map.of("owner", "finance"));
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/v1");

    assertThat(other.warehouseLocation(WAREHOUSE)).contains("file:/lake/main");
    assertThat(other.loadNamespace(WAREHOUSE, SALES)).contains(Map.of("owner", "finance"));
    other.swap(
        WAREHOUSE, List.of(new PointerSwap(ORDERS, EntityKind.TABLE, "file:/v1", "file:/v2")));

    assertThat(store.loadEntity(WAREHOUSE, ORDERS).map(EntityPointer::metadataLocation))
        .contains("file:/v2");
    assertThatThrownBy(
            () ->
                store.swap(
                    WAREHOUSE,
                    List.of(new PointerSwap(ORDERS, EntityKind.TABLE, "file:/v1", "file:/v3"))))
        .isInstanceOf(CommitFailedException.class);
    other.dropEntity(WAREHOUSE, ORDERS, EntityKind.TABLE);
    assertThat(store.loadEntity(WAREHOUSE, ORDERS)).isEmpty();
    assertThat(store.dropNamespace(WAREHOUSE, SALES)).isTrue();
    assertThat(other.loadNamespace(WAREHOUSE, SALES)).isEmpty();
  }

  @Test
  void readsWithoutWaitingFollowEveryChangeOfEveryStore() {
    MetadataStore other = open(database);
    store.createNamespace(WAREHOUSE, SALES, Map.of());
    assertThat(store.loadEntityWithoutWaiting(WAREHOUSE, ORDERS)).isEmpty();

    other.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/v1");
    assertReadWithoutWaiting(ORDERS, "file:/v1");
    store.swap(
        WAREHOUSE, List.of(new PointerSwap(ORDERS, EntityKind.TABLE, "file:/v1", "file:/v2")));
    assertReadWithoutWaiting(ORDERS, "file:/v2");
    other.swap(
        WAREHOUSE, List.of(new PointerSwap(ORDERS, EntityKind.TABLE, "file:/v2", "file:/v3")));
    assertReadWithoutWaiting(ORDERS, "file:/v3");
    other.renameEntity(WAREHOUSE, ORDERS, REVENUE, EntityKind.TABLE);
    assertThat(store.loadEntityWithoutWaiting(WAREHOUSE, ORDERS)).isEmpty();
    assertReadWithoutWaiting(REVENUE, "file:/v3");
    other.dropEntity(WAREHOUSE, REVENUE, EntityKind.TABLE);
    assertThat(store.loadEntityWithoutWaiting(WAREHOUSE, REVENUE)).isEmpty();
    assertThat(store.loadEntity(WAREHOUSE, REVENUE)).isEmpty();
  }

  /** Read on a thread of its own, as each event loop reads, and on this one again. */
  private void assertReadWithoutWaiting(TableIdentifier identifier, String location) {
    Optional<EntityPointer> expected = store.loadEntity(WAREHOUSE, identifier);
    assertThat(expected.map(EntityPointer::metadataLocation)).contains(location);
    List<Optional<EntityPointer>> reads = new ArrayList<>();
    Thread reader =
        Thread.ofPlatform()
            .start(() -> reads.add(store.loadEntityWithoutWaiting(WAREHOUSE, identifier)));
    try {
      reader.join();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    reads.add(store.loadEntityWithoutWaiting(WAREHOUSE, identifier));
    assertThat(reads).containsOnly(readsWithoutWaiting() ? expected : Optional.empty());
  }

  @Test
  void reopeningMigratesNothingAndKeepsState() {
    store.createNamespace(WAREHOUSE, SALES, Map.of("owner", "finance"));
    store.createEntity(WAREHOUSE, ORDERS, EntityKind.TABLE, "file:/v1");
    store.close();

    MetadataStore reopened = open(database);
    MetadataStore again = open(database);

    assertThat(reopened.loadNamespace(WAREHOUSE, SALES)).contains(Map.of("owner", "finance"));
    assertThat(again.loadEntity(WAREHOUSE, ORDERS))
        .contains(new EntityPointer(EntityKind.TABLE, "file:/v1", null));
    assertThat(again.ensureWarehouse(WAREHOUSE, "file:/elsewhere")).isEqualTo("file:/lake/main");
  }

  /** Server processes started together on a fresh database all migrate it and agree on it. */
  @Test
  void concurrentOpensOfAFreshDatabaseAllSucceed() throws Exception {
    Database fresh = createDatabase();

    List<String> locations =
        concurrently(
            4,
            thread -> {
              MetadataStore opened = fresh.open();
              try {
                return opened.ensureWarehouse("shared", "file:/from-" + thread);
              } finally {
                opened.close();
              }
            });

    assertThat(new HashSet<>(locations)).hasSize(1);
    MetadataStore check = open(fresh);
    assertThat(check.warehouseLocation("shared")).contains(locations.getFirst());
  }

  @Test
  void closeIsIdempotent() {
    MetadataStore other = open(database);
    other.close();
    other.close();
    assertThat(store.warehouseLocation(WAREHOUSE)).isPresent();
  }

  private interface ThreadTask<T> {
    T run(int thread) throws Exception;
  }

  /** Runs a task on several threads released together and returns their results in order. */
  private static <T> List<T> concurrently(int threads, ThreadTask<T> task) throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int thread = 0; thread < threads; thread++) {
        int id = thread;
        futures.add(
            executor.submit(
                () -> {
                  start.await();
                  return task.run(id);
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get(120, SECONDS));
      }
      return results;
    } finally {
      executor.shutdownNow();
    }
  }

  /** {@code Void.class} if the action completed, else the class of what it threw. */
  private static Class<?> outcome(Runnable action) {
    try {
      action.run();
      return Void.class;
    } catch (RuntimeException e) {
      return e.getClass();
    }
  }
}
