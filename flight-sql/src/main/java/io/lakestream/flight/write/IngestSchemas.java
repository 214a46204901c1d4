package io.lakestream.flight.write;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow schema an ingest sends, against the table it writes: which sent column fills each of
 * the table's columns (by name or position, with exactly the table's types), and the Iceberg schema
 * of a log table created from the sent schema. Failures name the columns and types involved.
 */
final class IngestSchemas {
  private IngestSchemas() {}

  /**
   * The Iceberg schema of a log table created for a sent schema: the columns in order, field ids
   * from 1, nullable columns optional and the others required; each Arrow type as the one Iceberg
   * type that maps back to it (Int(32) int, Int(64) long, FloatingPoint float or double, Bool
   * boolean, Utf8 string, Binary binary, FixedSizeBinary(L) fixed(L), Decimal decimal, Date(DAY)
   * date, Time(MICROSECOND) time, Timestamp(MICROSECOND) timestamp or, with zone UTC, timestamptz).
   *
   * @throws FlightRuntimeException {@code INVALID_ARGUMENT} naming a column of another type
   */
  static org.apache.iceberg.Schema icebergSchema(Schema sent, Object target) {
    List<org.apache.iceberg.types.Types.NestedField> columns = new ArrayList<>();
    int id = 1;
    for (Field field : sent.getFields()) {
      org.apache.iceberg.types.Type type = icebergType(field.getType());
      if (type == null || !field.getChildren().isEmpty()) {
        throw FlightIngest.invalid(
            "Cannot create table "
                + target
                + ": column "
                + field.getName()
                + " has type "
                + describe(field)
                + ", which no Iceberg column type of a log table maps to; nothing was written");
      }
      columns.add(
          field.isNullable()
              ? org.apache.iceberg.types.Types.NestedField.optional(id++, field.getName(), type)
              : org.apache.iceberg.types.Types.NestedField.required(id++, field.getName(), type));
    }
    return new org.apache.iceberg.Schema(columns);
  }

  private static org.apache.iceberg.types.Type icebergType(ArrowType type) {
    return switch (type) {
      case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 32 ->
          org.apache.iceberg.types.Types.IntegerType.get();
      case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 64 ->
          org.apache.iceberg.types.Types.LongType.get();
      case ArrowType.FloatingPoint f
          when f.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE ->
          org.apache.iceberg.types.Types.FloatType.get();
      case ArrowType.FloatingPoint f
          when f.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE ->
          org.apache.iceberg.types.Types.DoubleType.get();
      case ArrowType.Bool b -> org.apache.iceberg.types.Types.BooleanType.get();
      case ArrowType.Utf8 u -> org.apache.iceberg.types.Types.StringType.get();
      case ArrowType.Binary b -> org.apache.iceberg.types.Types.BinaryType.get();
      case ArrowType.FixedSizeBinary b ->
          org.apache.iceberg.types.Types.FixedType.ofLength(b.getByteWidth());
      case ArrowType.Decimal d when d.getBitWidth() == 128 && d.getPrecision() <= 38 ->
          org.apache.iceberg.types.Types.DecimalType.of(d.getPrecision(), d.getScale());
      case ArrowType.Date d when d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ->
          org.apache.iceberg.types.Types.DateType.get();
      case ArrowType.Time t
          when t.getUnit() == org.apache.arrow.vector.types.TimeUnit.MICROSECOND
              && t.getBitWidth() == 64 ->
          org.apache.iceberg.types.Types.TimeType.get();
      case ArrowType.Timestamp t
          when t.getUnit() == org.apache.arrow.vector.types.TimeUnit.MICROSECOND
              && t.getTimezone() == null ->
          org.apache.iceberg.types.Types.TimestampType.withoutZone();
      case ArrowType.Timestamp t
          when t.getUnit() == org.apache.arrow.vector.types.TimeUnit.MICROSECOND
              && "UTC".equals(t.getTimezone()) ->
          org.apache.iceberg.types.Types.TimestampType.withZone();
      default -> null;
    };
  }

  /**
   * For each table column, the index of the sent column that fills it, or -1 for none (nulls).
   *
   * @throws FlightRuntimeException {@code INVALID_ARGUMENT} naming the first column that does not
   *     fit
   */
  static int[] bind(FlightIngest.Resolved resolved, Schema sent, FlightIngest.Binding binding) {
    Schema schema = resolved.schema();
    List<Field> fields = schema.getFields();
    Map<String, Integer> tableColumns = new HashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      tableColumns.put(fields.get(i).getName(), i);
    }
    List<Field> sentFields = sent.getFields();
    List<String> targets = new ArrayList<>();
    boolean byName = binding.columns().isEmpty();
    if (!byName && binding.byNameIfNamesMatch()) {
      Set<String> names = new HashSet<>();
      byName = true;
      for (Field field : sentFields) {
        byName &= tableColumns.containsKey(field.getName()) && names.add(field.getName());
      }
    }
    if (byName) {
      sentFields.forEach(field -> targets.add(field.getName()));
    } else {
      if (binding.columns().size() != sentFields.size()) {
        throw FlightIngest.invalid(
            "The statement binds "
                + binding.columns().size()
                + " parameters but the batches have "
                + sentFields.size()
                + " columns");
      }
      targets.addAll(binding.columns());
    }
    int[] sources = new int[fields.size()];
    java.util.Arrays.fill(sources, -1);
    for (int i = 0; i < targets.size(); i++) {
      String name = targets.get(i);
      Integer column = tableColumns.get(name);
      if (column == null) {
        throw FlightIngest.invalid(
            "Column "
                + name
                + " is not a column of "
                + resolved.target()
                + " (its columns are "
                + tableColumns.keySet().stream().sorted().toList()
                + "); nothing was written");
      }
      if (sources[column] >= 0) {
        throw FlightIngest.invalid("Column " + name + " is sent twice; nothing was written");
      }
      Field expected = fields.get(column);
      Field actual = sentFields.get(i);
      if (!sameType(expected, actual)) {
        throw FlightIngest.invalid(
            "Column "
                + name
                + " of "
                + resolved.target()
                + " has type "
                + describe(expected)
                + " but the batches send "
                + describe(actual)
                + "; nothing was written");
      }
      sources[column] = i;
    }
    for (int column = 0; column < fields.size(); column++) {
      if (sources[column] < 0 && !fields.get(column).isNullable()) {
        throw FlightIngest.invalid(
            "Column "
                + fields.get(column).getName()
                + " of "
                + resolved.target()
                + " is required (not null) but the batches do not send it; nothing was written");
      }
    }
    return sources;
  }

  /** Same Arrow type, recursively; nullability and names of list elements may differ. */
  private static boolean sameType(Field expected, Field actual) {
    if (!expected.getType().equals(actual.getType())) {
      return false;
    }
    List<Field> expectedChildren = expected.getChildren();
    List<Field> actualChildren = actual.getChildren();
    if (expectedChildren.size() != actualChildren.size()) {
      return false;
    }
    boolean struct = expected.getType() instanceof ArrowType.Struct;
    for (int i = 0; i < expectedChildren.size(); i++) {
      if (struct && !expectedChildren.get(i).getName().equals(actualChildren.get(i).getName())) {
        return false;
      }
      if (!sameType(expectedChildren.get(i), actualChildren.get(i))) {
        return false;
      }
    }
    return true;
  }

  static String describe(Field field) {
    return field.getType() + (field.getChildren().isEmpty() ? "" : "<" + field.getChildren() + ">");
  }
}
