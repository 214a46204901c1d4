package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.MergeEngineType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Creates a table's {@link MergeEngine} from its table properties, refusing invalid combinations
 * when the table is set up rather than on its first write.
 *
 * <ul>
 *   <li>{@value #MERGE_ENGINE}: {@code last-row} (default), {@code first-row}, {@code versioned} or
 *       {@code aggregation}
 *   <li>{@value #VERSION_COLUMN}: for {@code versioned}, the column whose highest value wins; an
 *       int, long, float, double, decimal, date or timestamp column outside the primary key
 *   <li>{@code lakestream.fields.<column>.aggregate-function}: for {@code aggregation}, one of
 *       {@link AggregateFunction}'s names; non-key columns without one use {@code
 *       last_non_null_value}
 *   <li>{@code lakestream.fields.<column>.listagg-delimiter}: for a {@code listagg} column, the
 *       separator (default {@code ,})
 * </ul>
 */
public final class MergeEngines {
  public static final String MERGE_ENGINE = LakestreamProperties.MERGE_ENGINE;
  public static final String VERSION_COLUMN = LakestreamProperties.MERGE_ENGINE_VERSION_COLUMN;
  public static final String FIELDS_PREFIX = LakestreamProperties.FIELDS_PREFIX;
  public static final String AGGREGATE_FUNCTION = LakestreamProperties.AGGREGATE_FUNCTION;
  public static final String LISTAGG_DELIMITER = LakestreamProperties.LISTAGG_DELIMITER;

  public static final String LAST_ROW = MergeEngineType.LAST_ROW.value();
  public static final String FIRST_ROW = MergeEngineType.FIRST_ROW.value();
  public static final String VERSIONED = MergeEngineType.VERSIONED.value();
  public static final String AGGREGATION = MergeEngineType.AGGREGATION.value();
  private static final List<String> ENGINES = List.of(LAST_ROW, FIRST_ROW, VERSIONED, AGGREGATION);

  private MergeEngines() {}

  /**
   * The merge engine a table's properties ask for.
   *
   * @throws IllegalArgumentException naming the property or column and the reason: an unknown
   *     engine or function, a property naming an unknown column, a version column that is missing
   *     or not orderable, an aggregate function on a key column or on a column type it does not
   *     take, or an option for another engine
   */
  public static MergeEngine create(Schema schema, Map<String, String> properties) {
    requireNonNull(schema, "schema is null");
    requireNonNull(properties, "properties is null");
    String engine = properties.getOrDefault(MERGE_ENGINE, LAST_ROW);
    if (!ENGINES.contains(engine)) {
      throw new IllegalArgumentException(
          "Unknown " + MERGE_ENGINE + " '" + engine + "': expected one of " + ENGINES);
    }
    List<Types.NestedField> columns = schema.columns();
    Map<String, String> functions = new HashMap<>();
    Map<String, String> delimiters = new HashMap<>();
    for (Map.Entry<String, String> property : properties.entrySet()) {
      String key = property.getKey();
      if (!key.startsWith(FIELDS_PREFIX)) {
        continue;
      }
      String rest = key.substring(FIELDS_PREFIX.length());
      Map<String, String> target;
      String column;
      if (rest.endsWith("." + AGGREGATE_FUNCTION)) {
        target = functions;
        column = rest.substring(0, rest.length() - AGGREGATE_FUNCTION.length() - 1);
      } else if (rest.endsWith("." + LISTAGG_DELIMITER)) {
        target = delimiters;
        column = rest.substring(0, rest.length() - LISTAGG_DELIMITER.length() - 1);
      } else {
        throw new IllegalArgumentException(
            "Unknown property "
                + key
                + ": expected "
                + FIELDS_PREFIX
                + "<column>."
                + AGGREGATE_FUNCTION
                + " or ."
                + LISTAGG_DELIMITER);
      }
      if (position(columns, column) < 0) {
        throw new IllegalArgumentException(
            "Property " + key + " names column '" + column + "', which is not in the schema");
      }
      if (!engine.equals(AGGREGATION)) {
        throw new IllegalArgumentException(
            "Property "
                + key
                + " is only for "
                + MERGE_ENGINE
                + "="
                + AGGREGATION
                + ", not "
                + engine);
      }
      target.put(column, property.getValue());
    }
    if (properties.containsKey(VERSION_COLUMN) && !engine.equals(VERSIONED)) {
      throw new IllegalArgumentException(
          "Property "
              + VERSION_COLUMN
              + " is only for "
              + MERGE_ENGINE
              + "="
              + VERSIONED
              + ", not "
              + engine);
    }
    boolean[] key = keyColumns(schema);
    return switch (MergeEngineType.fromValue(engine).orElseThrow()) {
      case FIRST_ROW -> new FirstRowMergeEngine();
      case VERSIONED -> versioned(columns, key, properties.get(VERSION_COLUMN));
      case AGGREGATION -> aggregation(columns, key, functions, delimiters);
      case LAST_ROW -> new LastRowMergeEngine();
    };
  }

  private static MergeEngine versioned(
      List<Types.NestedField> columns, boolean[] key, String versionColumn) {
    if (versionColumn == null) {
      throw new IllegalArgumentException(
          MERGE_ENGINE + "=" + VERSIONED + " needs the property " + VERSION_COLUMN);
    }
    int position = position(columns, versionColumn);
    if (position < 0) {
      throw new IllegalArgumentException(
          "Version column '" + versionColumn + "' (" + VERSION_COLUMN + ") is not in the schema");
    }
    Types.NestedField column = columns.get(position);
    if (key[position]) {
      throw new IllegalArgumentException(
          "Version column '"
              + versionColumn
              + "' is a primary-key column: its value never changes"
              + " for a key");
    }
    Set<Type.TypeID> orderable =
        Set.of(
            Type.TypeID.INTEGER,
            Type.TypeID.LONG,
            Type.TypeID.FLOAT,
            Type.TypeID.DOUBLE,
            Type.TypeID.DECIMAL,
            Type.TypeID.DATE,
            Type.TypeID.TIMESTAMP);
    if (!orderable.contains(column.type().typeId())) {
      throw new IllegalArgumentException(
          "Version column '"
              + versionColumn
              + "' has type "
              + column.type()
              + ": a version must be numeric, a date or a timestamp");
    }
    return new VersionedMergeEngine(position, versionColumn);
  }

  private static MergeEngine aggregation(
      List<Types.NestedField> columns,
      boolean[] key,
      Map<String, String> functions,
      Map<String, String> delimiters) {
    AggregationMergeEngine.ColumnAggregate[] aggregates =
        new AggregationMergeEngine.ColumnAggregate[columns.size()];
    for (int position = 0; position < columns.size(); position++) {
      Types.NestedField column = columns.get(position);
      String functionName = functions.get(column.name());
      if (key[position]) {
        if (functionName != null) {
          throw new IllegalArgumentException(
              "Column '"
                  + column.name()
                  + "' is a primary-key column and cannot have an"
                  + " aggregate function ("
                  + functionName
                  + ")");
        }
        if (delimiters.containsKey(column.name())) {
          throw new IllegalArgumentException(
              "Column '"
                  + column.name()
                  + "' is a primary-key column and cannot have a "
                  + LISTAGG_DELIMITER);
        }
        continue;
      }
      AggregateFunction function =
          functionName == null
              ? AggregateFunction.LAST_NON_NULL_VALUE
              : AggregateFunction.fromName(column.name(), functionName);
      function.check(column);
      String delimiter = delimiters.get(column.name());
      if (delimiter != null && function != AggregateFunction.LISTAGG) {
        throw new IllegalArgumentException(
            "Column '"
                + column.name()
                + "' has a "
                + LISTAGG_DELIMITER
                + " but aggregate function "
                + function.functionName()
                + ", not listagg");
      }
      aggregates[position] =
          new AggregationMergeEngine.ColumnAggregate(
              column.name(), column.type(), function, delimiter == null ? "," : delimiter);
    }
    return new AggregationMergeEngine(aggregates);
  }

  private static boolean[] keyColumns(Schema schema) {
    List<Types.NestedField> columns = schema.columns();
    boolean[] key = new boolean[columns.size()];
    for (int position = 0; position < key.length; position++) {
      key[position] = schema.identifierFieldIds().contains(columns.get(position).fieldId());
    }
    return key;
  }

  private static int position(List<Types.NestedField> columns, String name) {
    for (int position = 0; position < columns.size(); position++) {
      if (columns.get(position).name().equals(name)) {
        return position;
      }
    }
    return -1;
  }

  /**
   * Orders two non-null canonical values of one column type: numbers, dates and timestamps by
   * value, strings by {@link String#compareTo}, binary unsigned lexicographically.
   */
  static int compare(Object left, Object right) {
    if (left instanceof byte[] leftBytes) {
      return Arrays.compareUnsigned(leftBytes, (byte[]) right);
    }
    @SuppressWarnings("unchecked")
    Comparable<Object> comparable = (Comparable<Object>) left;
    return comparable.compareTo(right);
  }
}
