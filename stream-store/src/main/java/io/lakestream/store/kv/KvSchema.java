package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The row layout of a primary-key table as its KV tablets see it: the current Iceberg schema, the
 * older schemas that stored values may have been written under, the primary key and the bucket key.
 *
 * <p><b>Rows</b> are {@code Object[]} in the current schema's column order holding canonical Java
 * values: {@code Boolean} (boolean), {@code Integer} (int, date as days), {@code Long} (long,
 * timestamp and timestamptz as microseconds), {@code Float}, {@code Double}, {@code BigDecimal}
 * (decimal), {@code String} (string), {@code byte[]} (binary, fixed). Other column types are
 * refused when the schema is set up.
 *
 * <p><b>Keys.</b> The primary key is the schema's identifier fields, in schema column order; key
 * values passed to lookups are in that order. The bucket key is the primary key or a subset of its
 * columns (in its own order); the encoded key puts the bucket-key columns first, so every key of
 * one bucket-key value shares a byte prefix ({@link KeyCodec}).
 *
 * <p>Immutable and thread-safe.
 */
public final class KvSchema {
  private final int schemaId;
  private final Schema schema;
  private final Map<Integer, Schema> schemas;
  private final List<Types.NestedField> columns;
  private final int[] primaryKey;
  private final int[] bucketKey;
  private final int[] keyEncodingOrder;
  private final boolean[] keyColumn;

  private KvSchema(int schemaId, Map<Integer, Schema> schemas, List<String> bucketKeyNames) {
    this.schemaId = schemaId;
    this.schemas = Map.copyOf(schemas);
    this.schema = requireNonNull(this.schemas.get(schemaId), "no schema with id " + schemaId);
    this.columns = schema.columns();
    for (Types.NestedField column : columns) {
      checkSupported(column);
    }
    Set<Integer> identifiers = schema.identifierFieldIds();
    if (identifiers.isEmpty()) {
      throw new IllegalArgumentException(
          "A primary-key table needs identifier fields (the primary key) in its schema");
    }
    keyColumn = new boolean[columns.size()];
    List<Integer> keyPositions = new ArrayList<>();
    for (int position = 0; position < columns.size(); position++) {
      if (identifiers.contains(columns.get(position).fieldId())) {
        keyColumn[position] = true;
        keyPositions.add(position);
      }
    }
    if (keyPositions.size() != identifiers.size()) {
      throw new IllegalArgumentException(
          "Primary-key columns must be top-level columns: identifier fields " + identifiers);
    }
    primaryKey = keyPositions.stream().mapToInt(Integer::intValue).toArray();
    if (bucketKeyNames.isEmpty()) {
      bucketKey = primaryKey.clone();
    } else {
      bucketKey = new int[bucketKeyNames.size()];
      for (int i = 0; i < bucketKey.length; i++) {
        String name = bucketKeyNames.get(i);
        int position = position(name);
        if (position < 0 || !keyColumn[position]) {
          throw new IllegalArgumentException(
              "Bucket-key column '" + name + "' is not a primary-key column");
        }
        for (int j = 0; j < i; j++) {
          if (bucketKey[j] == position) {
            throw new IllegalArgumentException("Bucket-key column '" + name + "' is repeated");
          }
        }
        bucketKey[i] = position;
      }
    }
    keyEncodingOrder = new int[primaryKey.length];
    System.arraycopy(bucketKey, 0, keyEncodingOrder, 0, bucketKey.length);
    int next = bucketKey.length;
    for (int position : primaryKey) {
      if (Arrays.stream(bucketKey).noneMatch(bucket -> bucket == position)) {
        keyEncodingOrder[next++] = position;
      }
    }
  }

  /**
   * The layout of a table.
   *
   * @param schemas every schema id values may have been written under, with its schema
   * @param currentSchemaId the id of the schema rows are read and written in
   * @param bucketKey the bucket-key column names; empty for the whole primary key
   * @throws IllegalArgumentException naming the column, for an unsupported column type, no primary
   *     key, or a bucket-key column outside the primary key
   */
  public static KvSchema create(
      Map<Integer, Schema> schemas, int currentSchemaId, List<String> bucketKey) {
    requireNonNull(schemas, "schemas is null");
    requireNonNull(bucketKey, "bucketKey is null");
    return new KvSchema(currentSchemaId, schemas, List.copyOf(bucketKey));
  }

  /** A table with a single schema, keyed and bucketed by the schema's identifier fields. */
  public static KvSchema of(Schema schema) {
    return create(Map.of(schema.schemaId(), schema), schema.schemaId(), List.of());
  }

  private static void checkSupported(Types.NestedField column) {
    switch (column.type().typeId()) {
      case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DECIMAL, DATE, STRING, BINARY, FIXED -> {}
      case TIMESTAMP -> {}
      default ->
          throw new IllegalArgumentException(
              "Column '"
                  + column.name()
                  + "' has type "
                  + column.type()
                  + ", which primary-key tables do not support");
    }
  }

  public int schemaId() {
    return schemaId;
  }

  public Schema schema() {
    return schema;
  }

  /** Every known schema by id, the current one included. */
  public Map<Integer, Schema> schemas() {
    return schemas;
  }

  public int columnCount() {
    return columns.size();
  }

  public Types.NestedField column(int position) {
    return columns.get(position);
  }

  /** Position of a top-level column, or -1. */
  public int position(String name) {
    for (int position = 0; position < columns.size(); position++) {
      if (columns.get(position).name().equals(name)) {
        return position;
      }
    }
    return -1;
  }

  /** Positions of the primary-key columns, in schema order. */
  public int[] primaryKey() {
    return primaryKey.clone();
  }

  /** Positions of the bucket-key columns, in bucket-key order. */
  public int[] bucketKey() {
    return bucketKey.clone();
  }

  /** Positions of the key columns in the order the key encodes them: bucket key first. */
  int[] keyEncodingOrder() {
    return keyEncodingOrder;
  }

  public boolean isKeyColumn(int position) {
    return keyColumn[position];
  }

  /**
   * Positions of named columns, sorted and without repeats.
   *
   * @throws IllegalArgumentException naming the first unknown column
   */
  public int[] positions(List<String> names) {
    TreeMap<Integer, String> positions = new TreeMap<>();
    for (String name : names) {
      int position = position(name);
      if (position < 0) {
        throw new IllegalArgumentException("Unknown column '" + name + "'");
      }
      positions.put(position, name);
    }
    return positions.keySet().stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Checks one value against its column and returns its canonical form (decimals rescaled to the
   * column's scale); null stays null.
   *
   * @throws IllegalArgumentException naming the column, for a value of the wrong Java type, a
   *     decimal that does not fit, or a fixed value of the wrong length
   */
  Object canonical(int position, Object value) {
    if (value == null) {
      return null;
    }
    Types.NestedField column = columns.get(position);
    Type type = column.type();
    Class<?> expected =
        switch (type.typeId()) {
          case BOOLEAN -> Boolean.class;
          case INTEGER, DATE -> Integer.class;
          case LONG, TIMESTAMP -> Long.class;
          case FLOAT -> Float.class;
          case DOUBLE -> Double.class;
          case DECIMAL -> BigDecimal.class;
          case STRING -> String.class;
          default -> byte[].class;
        };
    if (!expected.isInstance(value)) {
      throw new IllegalArgumentException(
          "Column '"
              + column.name()
              + "' of type "
              + type
              + " takes "
              + expected.getSimpleName()
              + " values, got "
              + value.getClass().getSimpleName());
    }
    if (type instanceof Types.DecimalType decimal) {
      BigDecimal rescaled;
      try {
        rescaled = ((BigDecimal) value).setScale(decimal.scale());
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(
            "Column '" + column.name() + "' of type " + type + " cannot hold " + value);
      }
      if (rescaled.precision() > decimal.precision()) {
        throw new IllegalArgumentException(
            "Column '" + column.name() + "' of type " + type + " cannot hold " + value);
      }
      return rescaled;
    }
    if (type instanceof Types.FixedType fixed && ((byte[]) value).length != fixed.length()) {
      throw new IllegalArgumentException(
          "Column '"
              + column.name()
              + "' of type "
              + type
              + " needs "
              + fixed.length()
              + " bytes, got "
              + ((byte[]) value).length);
    }
    return value;
  }

  /**
   * A canonical copy of a full row.
   *
   * @throws IllegalArgumentException for a wrong arity, a null key column or a value that does not
   *     fit its column
   */
  Object[] canonicalRow(Object[] row) {
    requireNonNull(row, "row is null");
    if (row.length != columns.size()) {
      throw new IllegalArgumentException(
          "Row has " + row.length + " values, the schema " + columns.size() + " columns");
    }
    Object[] copy = new Object[row.length];
    for (int position = 0; position < row.length; position++) {
      if (row[position] == null && keyColumn[position]) {
        throw new IllegalArgumentException(
            "Primary-key column '" + columns.get(position).name() + "' is null");
      }
      copy[position] = canonical(position, row[position]);
    }
    return copy;
  }

  /**
   * Canonical copies of values for the given columns.
   *
   * @throws IllegalArgumentException for a wrong count, a null or a value that does not fit
   */
  Object[] canonicalKey(Object[] values, int[] positions, String what) {
    requireNonNull(values, what + " is null");
    if (values.length != positions.length) {
      throw new IllegalArgumentException(
          what + " has " + values.length + " values, expected " + positions.length);
    }
    Object[] copy = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        throw new IllegalArgumentException(
            what + " has a null for column '" + columns.get(positions[i]).name() + "'");
      }
      copy[i] = canonical(positions[i], values[i]);
    }
    return copy;
  }
}
