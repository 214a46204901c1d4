package io.lakestream.store.kv;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Type.TypeID;
import org.apache.iceberg.types.Types;

/**
 * The per-column functions of the {@code aggregation} merge engine, named in {@code
 * lakestream.fields.<column>.aggregate-function}. Unless stated, a null input leaves the value as
 * it was, and the first non-null input of a null value becomes the value.
 */
public enum AggregateFunction {
  /** Adds (int, long, float, double, decimal); an int, long or decimal overflow is refused. */
  SUM("sum", numeric()),
  /** Multiplies (numeric types; decimals are rounded half-up to the column's scale). */
  PRODUCT("product", numeric()),
  /** Keeps the smallest value (any type: strings by {@link String#compareTo}, binary unsigned). */
  MIN("min", orderable()),
  /** Keeps the largest value. */
  MAX("max", orderable()),
  /**
   * Counts the writes that carried a non-null value for the column (int or long): a new key starts
   * at 0 or 1.
   */
  COUNT("count", EnumSet.of(TypeID.INTEGER, TypeID.LONG)),
  /** Keeps the value of the write that created the key, null included. */
  FIRST_VALUE("first_value", null),
  /** Keeps the first non-null value. */
  FIRST_NON_NULL_VALUE("first_non_null_value", null),
  /** Takes the newest value, null included. */
  LAST_VALUE("last_value", null),
  /** Takes the newest non-null value; the default for non-key columns. */
  LAST_NON_NULL_VALUE("last_non_null_value", null),
  /** Concatenates strings with the column's {@code listagg-delimiter} (default {@code ,}). */
  LISTAGG("listagg", EnumSet.of(TypeID.STRING)),
  /** Logical and of booleans. */
  BOOL_AND("bool_and", EnumSet.of(TypeID.BOOLEAN)),
  /** Logical or of booleans. */
  BOOL_OR("bool_or", EnumSet.of(TypeID.BOOLEAN));

  private final String functionName;
  private final Set<TypeID> types;

  AggregateFunction(String functionName, Set<TypeID> types) {
    this.functionName = functionName;
    this.types = types;
  }

  private static Set<TypeID> numeric() {
    return EnumSet.of(TypeID.INTEGER, TypeID.LONG, TypeID.FLOAT, TypeID.DOUBLE, TypeID.DECIMAL);
  }

  private static Set<TypeID> orderable() {
    return EnumSet.of(
        TypeID.BOOLEAN,
        TypeID.INTEGER,
        TypeID.LONG,
        TypeID.FLOAT,
        TypeID.DOUBLE,
        TypeID.DECIMAL,
        TypeID.DATE,
        TypeID.TIMESTAMP,
        TypeID.STRING,
        TypeID.BINARY,
        TypeID.FIXED);
  }

  /** The name used in table properties. */
  public String functionName() {
    return functionName;
  }

  /**
   * The function of a property value.
   *
   * @throws IllegalArgumentException naming the column and the unknown function
   */
  static AggregateFunction fromName(String column, String name) {
    for (AggregateFunction function : values()) {
      if (function.functionName.equals(name)) {
        return function;
      }
    }
    throw new IllegalArgumentException(
        "Column '"
            + column
            + "' has unknown aggregate function '"
            + name
            + "': expected one of "
            + Arrays.stream(values())
                .map(AggregateFunction::functionName)
                .collect(Collectors.joining(", ")));
  }

  /**
   * @throws IllegalArgumentException naming the column, if the function does not take its type
   */
  void check(Types.NestedField column) {
    Type type = column.type();
    if (types != null && !types.contains(type.typeId())) {
      throw new IllegalArgumentException(
          "Aggregate function "
              + functionName
              + " cannot aggregate column '"
              + column.name()
              + "' of type "
              + type
              + ": it takes "
              + types.stream()
                  .map(id -> id.name().toLowerCase(java.util.Locale.ROOT))
                  .collect(Collectors.joining(", ")));
    }
  }
}
