package io.lakestream.stream;

import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.NoSuchWarehouseException;
import io.lakestream.catalog.Warehouses;
import io.lakestream.client.PartitionField;
import io.lakestream.client.Partitioning;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.store.StreamTable;
import io.lakestream.store.TableResolver;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Resolves stream tables from the catalog: a table with {@code lakestream.kind} is a stream table
 * whose id is its Iceberg table UUID. Every call reads the current catalog pointer, so schema
 * changes and drops are seen at once; ids seen before are remembered to find their path.
 */
public final class CatalogTableResolver implements TableResolver {
  private record Path(String warehouse, List<String> namespace, String name) {}

  private final Warehouses warehouses;
  private final Map<String, Path> paths = new ConcurrentHashMap<>();
  private final Map<String, StreamTable> byMetadataLocation = new ConcurrentHashMap<>();

  public CatalogTableResolver(Warehouses warehouses) {
    this.warehouses = requireNonNull(warehouses, "warehouses is null");
  }

  @Override
  public Optional<StreamTable> resolve(String warehouse, List<String> namespace, String name) {
    String resolvedWarehouse = warehouse == null ? warehouses.defaultWarehouse() : warehouse;
    Optional<TableMetadata> metadata;
    try {
      if (namespace.isEmpty()) {
        return Optional.empty();
      }
      metadata =
          warehouses
              .catalog(resolvedWarehouse)
              .currentTableMetadata(
                  TableIdentifier.of(Namespace.of(namespace.toArray(String[]::new)), name));
    } catch (NoSuchWarehouseException | IllegalArgumentException e) {
      return Optional.empty();
    }
    return metadata
        .filter(table -> table.properties().containsKey(StreamTableProperties.KIND))
        .map(
            table -> {
              if (byMetadataLocation.size() > 10_000) {
                byMetadataLocation.clear();
              }
              StreamTable stream =
                  byMetadataLocation.computeIfAbsent(
                      table.metadataFileLocation(),
                      location -> toStreamTable(resolvedWarehouse, namespace, name, table));
              paths.put(stream.tableId(), new Path(resolvedWarehouse, namespace, name));
              return stream;
            });
  }

  /** How long {@link #resolveById} answers from memory before it reads the catalog again. */
  private static final long CACHE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

  private record Cached(StreamTable table, long expiresNanos) {}

  private final Map<String, Cached> byId = new ConcurrentHashMap<>();

  /**
   * Answers from a cache of up to a second, so that small requests (point lookups) do not each read
   * the catalog pointer; schema changes are seen within that second, or at once by callers that
   * find a batch's schema id missing and ask {@link #resolveFresh}.
   */
  @Override
  public Optional<StreamTable> resolveById(String tableId) {
    Cached cached = byId.get(tableId);
    if (cached != null && System.nanoTime() - cached.expiresNanos() < 0) {
      return Optional.of(cached.table());
    }
    return resolveFresh(tableId);
  }

  @Override
  public Optional<StreamTable> resolveCachedById(String tableId) {
    Cached cached = byId.get(tableId);
    return cached != null && System.nanoTime() - cached.expiresNanos() < 0
        ? Optional.of(cached.table())
        : Optional.empty();
  }

  /** Forgets a dropped table at once. */
  public void invalidate(String tableId) {
    byId.remove(tableId);
  }

  @Override
  public Optional<StreamTable> resolveFresh(String tableId) {
    Optional<StreamTable> table = readById(tableId);
    if (table.isPresent()) {
      if (byId.size() > 10_000) {
        byId.clear();
      }
      byId.put(tableId, new Cached(table.get(), System.nanoTime() + CACHE_NANOS));
    } else {
      byId.remove(tableId);
    }
    return table;
  }

  private Optional<StreamTable> readById(String tableId) {
    Path path = paths.get(tableId);
    if (path == null) {
      return Optional.empty();
    }
    return resolve(path.warehouse(), path.namespace(), path.name())
        .filter(table -> table.tableId().equals(tableId));
  }

  /** The current Iceberg metadata of a stream table resolved before by path; empty otherwise. */
  public Optional<TableMetadata> metadataById(String tableId) {
    Path path = paths.get(tableId);
    if (path == null) {
      return Optional.empty();
    }
    try {
      return warehouses
          .catalog(path.warehouse())
          .currentTableMetadata(
              TableIdentifier.of(
                  Namespace.of(path.namespace().toArray(String[]::new)), path.name()))
          .filter(metadata -> metadata.uuid().equals(tableId));
    } catch (NoSuchWarehouseException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Map<Integer, String> arrowSchemas(TableMetadata metadata, boolean changelog) {
    Map<Integer, String> schemas = new java.util.HashMap<>();
    metadata
        .schemasById()
        .forEach(
            (id, schema) -> {
              org.apache.arrow.vector.types.pojo.Schema arrow =
                  IcebergArrowSchemas.toArrowSchema(schema);
              schemas.put(id, (changelog ? ArrowValues.withChangeType(arrow) : arrow).toJson());
            });
    return schemas;
  }

  private static StreamTable toStreamTable(
      String warehouse, List<String> namespace, String name, TableMetadata metadata) {
    Map<String, String> properties = metadata.properties();
    String bucketKey = properties.get(StreamTableProperties.BUCKET_KEY);
    boolean primaryKeyTable =
        StreamTableProperties.PRIMARY_KEY.equals(properties.get(StreamTableProperties.KIND));
    List<String> primaryKey = primaryKey(metadata.schema());
    List<PartitionField> partitionFields =
        StreamTableProperties.partitionFields(metadata.spec(), metadata.schema());
    return new StreamTable(
        metadata.uuid(),
        warehouse,
        namespace,
        name,
        properties.get(StreamTableProperties.KIND),
        StreamTableProperties.buckets(properties),
        metadata.currentSchemaId(),
        metadata.schemasById().keySet(),
        SchemaParser.toJson(metadata.schema()),
        arrowSchemas(metadata, primaryKeyTable),
        bucketKey != null
            ? Arrays.stream(bucketKey.split(",")).map(String::trim).toList()
            : primaryKeyTable ? primaryKey : List.of(),
        partitionFields,
        partitioning(metadata, partitionFields),
        primaryKeyTable ? primaryKey : List.of(),
        metadata.schemasById(),
        properties);
  }

  /** The identifier fields of a schema, by name in schema order. */
  static List<String> primaryKey(org.apache.iceberg.Schema schema) {
    return schema.columns().stream()
        .filter(column -> schema.identifierFieldIds().contains(column.fieldId()))
        .map(org.apache.iceberg.types.Types.NestedField::name)
        .toList();
  }

  /**
   * The partitioning under each schema that has the partition source columns; batches of other
   * schemas are refused.
   */
  private static Map<Integer, Partitioning> partitioning(
      TableMetadata metadata, List<PartitionField> fields) {
    Map<Integer, Partitioning> partitioning = new java.util.HashMap<>();
    metadata
        .schemasById()
        .forEach(
            (id, schema) -> {
              try {
                partitioning.put(
                    id, Partitioning.of(fields, IcebergArrowSchemas.toArrowSchema(schema)));
              } catch (IllegalArgumentException e) {
                // A schema without a source column (older than the column) places no batch.
              }
            });
    return partitioning;
  }
}
