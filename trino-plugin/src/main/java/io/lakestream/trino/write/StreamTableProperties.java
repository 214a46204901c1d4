package io.lakestream.trino.write;

import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.VarcharType.VARCHAR;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TableKind;
import io.lakestream.trino.TrinoValues;
import io.trino.plugin.iceberg.IcebergTableProperties;
import io.trino.plugin.iceberg.IcebergUtil;
import io.trino.plugin.iceberg.PartitionFields;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.type.ArrayType;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Types;

/**
 * The table properties a {@code lakestream} catalog adds to the Iceberg connector's for {@code
 * CREATE TABLE}, and the stream table definition ({@link TableDescriptor}) they make with the
 * table's columns and the Iceberg connector's {@code partitioning}:
 *
 * <ul>
 *   <li>{@code kind}: {@code 'log'} (the default), {@code 'primary-key'}, or {@code 'iceberg'} for
 *       a plain Iceberg table, which the Iceberg connector creates as it would;
 *   <li>{@code buckets}, {@code bucket_key}: the stream's buckets and the columns that pick one;
 *   <li>{@code primary_key}: a primary-key table's key columns (required for it), declared to the
 *       server as the Iceberg schema's identifier fields;
 *   <li>{@code merge_engine}, {@code tiering_interval}: passed to the server as they are.
 * </ul>
 *
 * What is checked here is only what Trino must know (the kind, positive buckets, columns that
 * exist, flat column types); the server validates the whole definition and names what it refuses.
 */
public final class StreamTableProperties {
  public static final String KIND = "kind";
  public static final String BUCKETS = "buckets";
  public static final String BUCKET_KEY = "bucket_key";
  public static final String PRIMARY_KEY = "primary_key";
  public static final String MERGE_ENGINE = "merge_engine";
  public static final String TIERING_INTERVAL = "tiering_interval";

  /** The Iceberg table property holding the table's comment, as the Iceberg connector names it. */
  static final String TABLE_COMMENT = "comment";

  /** The {@code kind} of a plain Iceberg table. */
  public static final String ICEBERG = "iceberg";

  /** Buckets of a new streaming table without {@code buckets}. */
  public static final int DEFAULT_BUCKETS = 4;

  private static final Set<String> NAMES =
      Set.of(KIND, BUCKETS, BUCKET_KEY, PRIMARY_KEY, MERGE_ENGINE, TIERING_INTERVAL);

  private StreamTableProperties() {}

  /** The properties' metadata, added to the Iceberg connector's. */
  public static List<PropertyMetadata<?>> properties() {
    return List.of(
        PropertyMetadata.stringProperty(
            KIND,
            "Table kind: 'log' (append-only stream), 'primary-key' or 'iceberg' (a plain Iceberg"
                + " table)",
            TableKind.LOG.value(),
            false),
        PropertyMetadata.integerProperty(
            BUCKETS, "Buckets of the stream (default " + DEFAULT_BUCKETS + ")", null, false),
        columnList(BUCKET_KEY, "Columns whose hash picks a row's bucket"),
        columnList(PRIMARY_KEY, "Primary-key columns (primary-key tables)"),
        PropertyMetadata.stringProperty(
            MERGE_ENGINE,
            "Merge engine of a primary-key table (last-row, first-row, versioned, aggregation)",
            null,
            false),
        PropertyMetadata.stringProperty(
            TIERING_INTERVAL,
            "How often the table is tiered into the lake (e.g. 30s)",
            null,
            false));
  }

  private static PropertyMetadata<List<String>> columnList(String name, String description) {
    return new PropertyMetadata<>(
        name,
        description,
        new ArrayType(VARCHAR),
        (Class<List<String>>) (Class<?>) List.class,
        List.of(),
        false,
        value ->
            ((Collection<?>) value)
                .stream().map(column -> ((String) column).toLowerCase(Locale.ROOT)).toList(),
        value -> value);
  }

  /** Whether a table to create is a streaming table; refuses an unknown {@code kind}. */
  public static Optional<TableKind> kind(Map<String, Object> properties) {
    String kind = (String) properties.get(KIND);
    if (kind == null || ICEBERG.equals(kind)) {
      return Optional.empty();
    }
    return Optional.of(
        TableKind.fromValue(kind)
            .orElseThrow(
                () ->
                    new TrinoException(
                        INVALID_TABLE_PROPERTY,
                        "Invalid kind '"
                            + kind
                            + "': expected 'log', 'primary-key' or 'iceberg'")));
  }

  /**
   * The table metadata without this class's properties, for the Iceberg connector; refuses
   * Lakestream properties set on a plain Iceberg table.
   */
  public static ConnectorTableMetadata forIceberg(ConnectorTableMetadata table) {
    Map<String, Object> properties = new LinkedHashMap<>();
    table
        .getProperties()
        .forEach(
            (name, value) -> {
              if (!NAMES.contains(name)) {
                properties.put(name, value);
              } else if (!name.equals(KIND) && isSet(value)) {
                throw new TrinoException(
                    INVALID_TABLE_PROPERTY,
                    "Property "
                        + name
                        + " is only for streaming tables (kind 'log' or 'primary-key'), not for"
                        + " kind 'iceberg'");
              }
            });
    return new ConnectorTableMetadata(
        table.getTable(),
        table.getColumns(),
        properties,
        table.getComment(),
        table.getCheckConstraints());
  }

  private static boolean isSet(Object value) {
    return value != null && !(value instanceof Collection<?> list && list.isEmpty());
  }

  /**
   * The stream table definition of a table to create.
   *
   * @throws TrinoException INVALID_TABLE_PROPERTY for a property Trino can tell is wrong,
   *     NOT_SUPPORTED for a column type streaming tables cannot hold
   */
  public static TableDescriptor descriptor(ConnectorTableMetadata table, TableKind kind) {
    Map<String, Object> properties = table.getProperties();
    List<ColumnMetadata> columns =
        table.getColumns().stream().filter(column -> !column.isHidden()).toList();
    Set<String> names = new HashSet<>();
    for (ColumnMetadata column : columns) {
      names.add(column.getName());
      checkSupported(table.getTable(), column);
    }
    @SuppressWarnings("unchecked")
    List<String> primaryKey = (List<String>) properties.getOrDefault(PRIMARY_KEY, List.of());
    @SuppressWarnings("unchecked")
    List<String> bucketKey = (List<String>) properties.getOrDefault(BUCKET_KEY, List.of());
    checkColumns(PRIMARY_KEY, primaryKey, names);
    checkColumns(BUCKET_KEY, bucketKey, names);
    if (kind == TableKind.PRIMARY_KEY && primaryKey.isEmpty()) {
      throw new TrinoException(
          INVALID_TABLE_PROPERTY,
          "A primary-key table needs the primary_key property (e.g. primary_key = ARRAY['id'])");
    }
    if (kind == TableKind.LOG && !primaryKey.isEmpty()) {
      throw new TrinoException(
          INVALID_TABLE_PROPERTY,
          "Property primary_key is only for kind 'primary-key', not for kind 'log'");
    }
    Integer buckets = (Integer) properties.get(BUCKETS);
    if (buckets != null && buckets <= 0) {
      throw new TrinoException(
          INVALID_TABLE_PROPERTY, "Invalid buckets " + buckets + ": must be at least 1");
    }

    // Key columns are required fields: Iceberg's identifier fields must be.
    List<ColumnMetadata> schemaColumns =
        columns.stream()
            .map(
                column ->
                    primaryKey.contains(column.getName())
                        ? ColumnMetadata.builderFrom(column).setNullable(false).build()
                        : column)
            .toList();
    Schema schema = IcebergUtil.schemaFromMetadata(schemaColumns);
    if (!primaryKey.isEmpty()) {
      Set<Integer> identifiers = new HashSet<>();
      for (String column : primaryKey) {
        identifiers.add(schema.findField(column).fieldId());
      }
      List<Types.NestedField> fields = schema.columns();
      schema = new Schema(fields, identifiers);
    }
    PartitionSpec spec =
        PartitionFields.parsePartitionFields(
            schema, IcebergTableProperties.getPartitioning(properties));

    Map<String, String> streamProperties = new LinkedHashMap<>();
    streamProperties.put(LakestreamProperties.KIND, kind.value());
    streamProperties.put(
        LakestreamProperties.BUCKETS,
        Integer.toString(buckets == null ? DEFAULT_BUCKETS : buckets));
    if (!bucketKey.isEmpty()) {
      streamProperties.put(LakestreamProperties.BUCKET_KEY, String.join(",", bucketKey));
    }
    putIfSet(streamProperties, LakestreamProperties.MERGE_ENGINE, properties.get(MERGE_ENGINE));
    putIfSet(
        streamProperties, LakestreamProperties.TIERING_INTERVAL, properties.get(TIERING_INTERVAL));
    // The Iceberg table property in which the Iceberg connector keeps a table's comment.
    table.getComment().ifPresent(comment -> streamProperties.put(TABLE_COMMENT, comment));
    return new TableDescriptor(
        SchemaParser.toJson(schema),
        spec.isUnpartitioned() ? "" : PartitionSpecParser.toJson(spec),
        streamProperties);
  }

  /**
   * Refuses a column of a type streaming tables cannot hold.
   *
   * @throws TrinoException NOT_SUPPORTED naming the column and its type
   */
  public static void checkSupported(SchemaTableName table, ColumnMetadata column) {
    if (!TrinoValues.isSupported(column.getType())) {
      throw new TrinoException(
          NOT_SUPPORTED,
          "Column "
              + column.getName()
              + " of "
              + table
              + " has type "
              + column.getType()
              + ", which is not supported: streaming tables cannot hold arrays, maps or rows; use"
              + " kind = 'iceberg' for a plain Iceberg table");
    }
  }

  private static void checkColumns(String property, List<String> columns, Set<String> names) {
    for (String column : columns) {
      if (!names.contains(column)) {
        throw new TrinoException(
            INVALID_TABLE_PROPERTY,
            "Invalid " + property + ": column '" + column + "' is not a column of the table");
      }
    }
    if (new HashSet<>(columns).size() != columns.size()) {
      throw new TrinoException(
          INVALID_TABLE_PROPERTY, "Invalid " + property + ": " + columns + " repeats a column");
    }
  }

  private static void putIfSet(Map<String, String> properties, String key, Object value) {
    if (value != null) {
      properties.put(key, (String) value);
    }
  }

  /**
   * A streaming table's values of this class's properties, for {@code SHOW CREATE TABLE}, from its
   * Iceberg table properties and the key columns of its schema.
   */
  public static Map<String, Object> of(Map<String, String> tableProperties, List<String> key) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put(KIND, tableProperties.get(LakestreamProperties.KIND));
    String buckets = tableProperties.get(LakestreamProperties.BUCKETS);
    if (buckets != null) {
      try {
        properties.put(BUCKETS, Integer.parseInt(buckets.trim()));
      } catch (NumberFormatException e) {
        // A value the server let through before it checked them; nothing to show.
      }
    }
    String bucketKey = tableProperties.get(LakestreamProperties.BUCKET_KEY);
    if (bucketKey != null && !bucketKey.isBlank()) {
      properties.put(BUCKET_KEY, List.of(bucketKey.split(",")).stream().map(String::trim).toList());
    }
    if (!key.isEmpty()) {
      properties.put(PRIMARY_KEY, List.copyOf(key));
    }
    String mergeEngine = tableProperties.get(LakestreamProperties.MERGE_ENGINE);
    if (mergeEngine != null) {
      properties.put(MERGE_ENGINE, mergeEngine);
    }
    String interval = tableProperties.get(LakestreamProperties.TIERING_INTERVAL);
    if (interval != null) {
      properties.put(TIERING_INTERVAL, interval);
    }
    return properties;
  }
}
