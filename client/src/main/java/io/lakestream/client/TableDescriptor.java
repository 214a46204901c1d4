package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * What {@link Admin#createTable} creates: an Iceberg schema and partition spec (as Iceberg JSON)
 * and table properties. A log table has {@code lakestream.kind=log} and {@code lakestream.buckets};
 * a primary-key table also has a primary key, the schema's identifier fields. The factories build
 * those properties and the fluent {@code with...} methods add options; each returns a new
 * descriptor. They refuse a value that is wrong on its face (an unknown column, a bucket count out
 * of range) with an {@link IllegalArgumentException}; the server checks the rest when the table is
 * created.
 *
 * <pre>{@code
 * TableDescriptor clicks = TableDescriptor.logTable(schema, 4).withBucketKey("user_id");
 * TableDescriptor users =
 *     TableDescriptor.primaryKeyTable(schema, List.of("user_id"), 8)
 *         .withMergeEngine(MergeEngineType.FIRST_ROW)
 *         .withTieringInterval(Duration.ofMinutes(1));
 * }</pre>
 *
 * <p>A partial update's columns are not a table option: a writer names them ({@link
 * Table#newUpsertWriter(java.util.List, WriterOptions)}).
 *
 * @param schemaJson the schema in Iceberg's JSON format
 * @param partitionSpecJson the partition spec in Iceberg's JSON format; empty for unpartitioned
 * @param properties the table properties
 */
public record TableDescriptor(
    String schemaJson, String partitionSpecJson, Map<String, String> properties) {
  /** The same as {@link LakestreamProperties#KIND}. */
  public static final String KIND = LakestreamProperties.KIND;

  /** The same as {@link LakestreamProperties#BUCKETS}. */
  public static final String BUCKETS = LakestreamProperties.BUCKETS;

  /** The same as {@link LakestreamProperties#BUCKET_KEY}. */
  public static final String BUCKET_KEY = LakestreamProperties.BUCKET_KEY;

  private static final Duration MIN_TIERING_INTERVAL = Duration.ofSeconds(1);
  private static final Duration MAX_TIERING_INTERVAL = Duration.ofDays(7);

  /**
   * A descriptor of these parts; the properties are copied in their order.
   *
   * @throws NullPointerException for a null part, property key or value
   */
  public TableDescriptor {
    requireNonNull(schemaJson, "schemaJson is null");
    requireNonNull(partitionSpecJson, "partitionSpecJson is null");
    Map<String, String> copy = new LinkedHashMap<>();
    properties.forEach(
        (key, value) ->
            copy.put(
                requireNonNull(key, "property key is null"),
                requireNonNull(value, () -> "value of property " + key + " is null")));
    properties = Collections.unmodifiableMap(copy);
  }

  /**
   * An unpartitioned table of an Iceberg schema with these properties (without {@code
   * lakestream.kind} it is a plain Iceberg table).
   *
   * @param schema the table's Iceberg schema
   * @param properties the table properties, copied in their order
   * @return a new descriptor
   * @throws IllegalArgumentException for a field with a default value: pass such a schema as JSON
   */
  public static TableDescriptor of(Schema schema, Map<String, String> properties) {
    return new TableDescriptor(IcebergSchemaJson.toJson(schema), "", properties);
  }

  /**
   * An unpartitioned log table of an Iceberg schema with {@code buckets} buckets.
   *
   * @param schema the table's Iceberg schema
   * @param buckets the number of buckets, which bounds how many writers and readers work in
   *     parallel; fixed once the table exists
   * @return a new descriptor
   * @throws IllegalArgumentException if {@code buckets} is not from 1 to {@value
   *     LakestreamProperties#MAX_BUCKETS}
   */
  public static TableDescriptor logTable(Schema schema, int buckets) {
    return logTable(IcebergSchemaJson.toJson(schema), buckets);
  }

  /**
   * An unpartitioned log table of a schema given as Iceberg JSON.
   *
   * @param schemaJson the schema in Iceberg's JSON format (the server parses it)
   * @param buckets the number of buckets; fixed once the table exists
   * @return a new descriptor
   * @throws IllegalArgumentException if {@code buckets} is not from 1 to {@value
   *     LakestreamProperties#MAX_BUCKETS}
   */
  public static TableDescriptor logTable(String schemaJson, int buckets) {
    checkBuckets(buckets);
    return new TableDescriptor(
        schemaJson, "", Map.of(KIND, TableKind.LOG.value(), BUCKETS, Integer.toString(buckets)));
  }

  /**
   * An unpartitioned primary-key table of an Iceberg schema whose primary key is {@code
   * keyColumns}, with {@code buckets} buckets. The key columns become the schema's identifier
   * fields and are made required (a primary key has no nulls); the other columns stay as they are.
   * Rows go to buckets by the hash of the whole key unless {@link #withBucketKey} names a part of
   * it.
   *
   * @param schema the table's Iceberg schema
   * @param keyColumns top-level columns of {@code schema}, in key order
   * @param buckets the number of buckets; fixed once the table exists
   * @return a new descriptor
   * @throws IllegalArgumentException if {@code keyColumns} is empty, names a column twice or a
   *     column that is not a top-level column of the schema, names a column whose type cannot be a
   *     key (a struct, list or map, a float or a double), or {@code buckets} is not from 1 to
   *     {@value LakestreamProperties#MAX_BUCKETS}
   */
  public static TableDescriptor primaryKeyTable(
      Schema schema, List<String> keyColumns, int buckets) {
    requireNonNull(schema, "schema is null");
    requireNonNull(keyColumns, "keyColumns is null");
    checkBuckets(buckets);
    if (keyColumns.isEmpty()) {
      throw new IllegalArgumentException("A primary-key table needs at least one key column");
    }
    Set<Integer> keyIds = new LinkedHashSet<>();
    for (String column : keyColumns) {
      Types.NestedField field = schema.asStruct().field(requireNonNull(column, "key column"));
      if (field == null) {
        throw new IllegalArgumentException(
            "Key column '"
                + column
                + "' is not a top-level column of the schema "
                + columnNames(schema));
      }
      if (!field.type().isPrimitiveType()
          || field.type().typeId() == Type.TypeID.FLOAT
          || field.type().typeId() == Type.TypeID.DOUBLE) {
        throw new IllegalArgumentException(
            "Key column '" + column + "' has type " + field.type() + ", which cannot be a key");
      }
      if (!keyIds.add(field.fieldId())) {
        throw new IllegalArgumentException(
            "Key column '" + column + "' is named twice in " + keyColumns);
      }
    }
    List<Types.NestedField> columns = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      columns.add(keyIds.contains(field.fieldId()) ? field.asRequired() : field);
    }
    Schema keyed = new Schema(schema.schemaId(), columns, keyIds);
    return new TableDescriptor(
        IcebergSchemaJson.toJson(keyed),
        "",
        Map.of(KIND, TableKind.PRIMARY_KEY.value(), BUCKETS, Integer.toString(buckets)));
  }

  /**
   * Rows go to buckets by the hash of these columns instead of round-robin (a log table) or of the
   * whole primary key (a primary-key table, whose bucket key must be a prefix of its key; the
   * server checks that).
   *
   * @param columns the bucket key's column names, in order
   * @return a new descriptor
   * @throws IllegalArgumentException if {@code columns} is empty or contains a blank name
   */
  public TableDescriptor withBucketKey(List<String> columns) {
    requireNonNull(columns, "columns is null");
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("A bucket key needs at least one column");
    }
    for (String column : columns) {
      if (column == null || column.isBlank() || column.contains(",")) {
        throw new IllegalArgumentException("Invalid bucket key column '" + column + "'");
      }
    }
    return withProperty(BUCKET_KEY, String.join(",", columns));
  }

  /**
   * The same as {@link #withBucketKey(List)}.
   *
   * @param columns the bucket key's column names, in order
   * @return a new descriptor
   * @throws IllegalArgumentException if {@code columns} is empty or contains a blank name
   */
  public TableDescriptor withBucketKey(String... columns) {
    return withBucketKey(List.of(columns));
  }

  /**
   * The merge engine of a primary-key table. For {@link MergeEngineType#VERSIONED} use {@link
   * #withVersionColumn}, which also names the version column.
   *
   * @param engine how rows written for the same key are merged
   * @return a new descriptor
   * @throws IllegalArgumentException if this is not a primary-key table
   */
  public TableDescriptor withMergeEngine(MergeEngineType engine) {
    requireNonNull(engine, "engine is null");
    checkPrimaryKey(LakestreamProperties.MERGE_ENGINE);
    return withProperty(LakestreamProperties.MERGE_ENGINE, engine.value());
  }

  /**
   * The {@link MergeEngineType#VERSIONED versioned} merge engine with this version column: of the
   * rows written for a key, the one with the highest value of the column wins.
   *
   * @param column the version column's name
   * @return a new descriptor
   * @throws IllegalArgumentException if this is not a primary-key table or the column is blank
   */
  public TableDescriptor withVersionColumn(String column) {
    requireNonNull(column, "column is null");
    if (column.isBlank()) {
      throw new IllegalArgumentException("The version column's name is blank");
    }
    return withMergeEngine(MergeEngineType.VERSIONED)
        .withProperty(LakestreamProperties.MERGE_ENGINE_VERSION_COLUMN, column);
  }

  /**
   * The {@link MergeEngineType#AGGREGATION aggregation} merge engine, with this aggregate function
   * for one non-key column (for example {@code sum}, {@code max}, {@code listagg}); call once per
   * column. Columns without one keep their last non-null value.
   *
   * @param column a non-key column's name
   * @param function the aggregate function's name; the server checks that it exists
   * @return a new descriptor
   * @throws IllegalArgumentException if this is not a primary-key table or a name is blank
   */
  public TableDescriptor withAggregateFunction(String column, String function) {
    requireNonNull(column, "column is null");
    requireNonNull(function, "function is null");
    if (column.isBlank() || function.isBlank()) {
      throw new IllegalArgumentException(
          "Invalid aggregate function '" + function + "' for column '" + column + "'");
    }
    return withMergeEngine(MergeEngineType.AGGREGATION)
        .withProperty(
            LakestreamProperties.fieldProperty(column, LakestreamProperties.AGGREGATE_FUNCTION),
            function);
  }

  /**
   * Tiers the table into this lake format: {@code iceberg} (the default) or {@code paimon}.
   *
   * @param format {@code iceberg} or {@code paimon}
   * @return a new descriptor
   * @throws IllegalArgumentException for another value
   */
  public TableDescriptor withLakeFormat(String format) {
    requireNonNull(format, "format is null");
    if (!format.equals("iceberg") && !format.equals("paimon")) {
      throw new IllegalArgumentException(
          "Invalid lake format '" + format + "': expected iceberg or paimon");
    }
    return withProperty(LakestreamProperties.LAKE_FORMAT, format);
  }

  /**
   * How often the table is tiered into the lake (the server's default is 30 s).
   *
   * @param interval from 1 s to 7 days: shorter makes tiered data fresher and makes more, smaller
   *     lake commits
   * @return a new descriptor
   * @throws IllegalArgumentException if the interval is shorter than 1 s, longer than 7 days, or
   *     not a whole number of milliseconds
   */
  public TableDescriptor withTieringInterval(Duration interval) {
    requireNonNull(interval, "interval is null");
    if (interval.compareTo(MIN_TIERING_INTERVAL) < 0
        || interval.compareTo(MAX_TIERING_INTERVAL) > 0
        || interval.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "Invalid tiering interval " + interval + ": expected whole milliseconds from 1s to 7d");
    }
    return withProperty(LakestreamProperties.TIERING_INTERVAL, interval.toMillis() + "ms");
  }

  /**
   * How long the table's log keeps rows ({@value LakestreamProperties#LOG_RETENTION}), instead of
   * the server's {@code log.retention} (7 days by default), as Kafka's per-topic {@code
   * retention.ms} does. Rows are removed a segment at a time once all of the segment is older, and
   * never before they are tiered into the lake (nor, for a primary-key table, before its state is
   * checkpointed); a partition goes whole once its newest row is older.
   *
   * @param retention at least 1 s, in whole milliseconds
   * @return a new descriptor
   * @throws IllegalArgumentException if the retention is shorter than 1 s or not a whole number of
   *     milliseconds
   */
  public TableDescriptor withLogRetention(Duration retention) {
    requireNonNull(retention, "retention is null");
    if (retention.compareTo(Duration.ofSeconds(1)) < 0 || retention.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "Invalid log retention " + retention + ": expected whole milliseconds of at least 1s");
    }
    return withProperty(LakestreamProperties.LOG_RETENTION, retention.toMillis() + "ms");
  }

  /**
   * Partitions the table by this Iceberg partition spec (built on the same schema: its source ids
   * are the schema's field ids). A primary-key table's partition columns must be key columns.
   *
   * @param spec the partition spec; the server checks its transforms and source columns
   * @return a new descriptor
   */
  public TableDescriptor withPartitionSpec(PartitionSpec spec) {
    requireNonNull(spec, "spec is null");
    StringBuilder json = new StringBuilder("{\"spec-id\":").append(spec.specId());
    json.append(",\"fields\":[");
    String separator = "";
    for (org.apache.iceberg.PartitionField field : spec.fields()) {
      json.append(separator)
          .append("{\"name\":")
          .append(quote(field.name()))
          .append(",\"transform\":")
          .append(quote(field.transform().toString()))
          .append(",\"source-id\":")
          .append(field.sourceId())
          .append(",\"field-id\":")
          .append(field.fieldId())
          .append('}');
      separator = ",";
    }
    return withPartitionSpecJson(json.append("]}").toString());
  }

  /**
   * This descriptor with one more property (or another value of it). Property names are in {@link
   * LakestreamProperties}; the server checks {@code lakestream.} properties when the table is
   * created.
   *
   * @param key the property name
   * @param value the property value
   * @return a new descriptor
   */
  public TableDescriptor withProperty(String key, String value) {
    Map<String, String> copy = new LinkedHashMap<>(properties);
    copy.put(requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
    return new TableDescriptor(schemaJson, partitionSpecJson, copy);
  }

  /**
   * A partition spec in Iceberg's JSON format (its source ids refer to the schema's field ids).
   *
   * @param json the spec in Iceberg's JSON format, or {@code ""} for unpartitioned
   * @return a new descriptor
   */
  public TableDescriptor withPartitionSpecJson(String json) {
    return new TableDescriptor(schemaJson, json, properties);
  }

  private void checkPrimaryKey(String property) {
    if (!TableKind.PRIMARY_KEY.is(properties.get(KIND))) {
      throw new IllegalArgumentException(
          property
              + " is only for primary-key tables, not "
              + (properties.containsKey(KIND) ? KIND + "=" + properties.get(KIND) : "this table"));
    }
  }

  private static void checkBuckets(int buckets) {
    if (buckets < 1 || buckets > LakestreamProperties.MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "Invalid bucket count "
              + buckets
              + ": expected 1 to "
              + LakestreamProperties.MAX_BUCKETS);
    }
  }

  private static List<String> columnNames(Schema schema) {
    return schema.columns().stream().map(Types.NestedField::name).toList();
  }

  private static String quote(String value) {
    StringBuilder quoted = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      if (c == '"' || c == '\\') {
        quoted.append('\\');
      }
      quoted.append(c);
    }
    return quoted.append('"').toString();
  }
}
