package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.util.UUIDUtil;

/**
 * Turns rows of a log batch into Iceberg generic records of the lake table's schema. Columns are
 * matched by Iceberg field id (then by name), so a batch written under an older schema reads with
 * the current one: a column it lacks is null, a promoted type (int to long, float to double) is
 * widened. Only the table's own columns are produced, never system columns.
 */
public final class LakeRecords {
  private final Schema schema;
  private final List<Types.NestedField> columns;
  private final GenericRecord template;

  public LakeRecords(Schema schema) {
    this.schema = requireNonNull(schema, "schema is null");
    this.columns = schema.columns();
    this.template = GenericRecord.create(schema);
  }

  /** The vectors of a batch in the order of the lake schema's columns; null where it has none. */
  public FieldVector[] vectorsOf(VectorSchemaRoot root) {
    FieldVector[] vectors = new FieldVector[columns.size()];
    List<FieldVector> batch = root.getFieldVectors();
    for (int i = 0; i < vectors.length; i++) {
      Types.NestedField column = columns.get(i);
      String id = Integer.toString(column.fieldId());
      for (FieldVector vector : batch) {
        if (id.equals(vector.getField().getMetadata().get(IcebergArrowSchemas.FIELD_ID_KEY))) {
          vectors[i] = vector;
          break;
        }
      }
      if (vectors[i] == null) {
        vectors[i] = root.getVector(column.name());
      }
    }
    return vectors;
  }

  /** One row of a batch, from its vectors as {@link #vectorsOf} ordered them. */
  public Record record(FieldVector[] vectors, int row) {
    Record record = template.copy();
    for (int i = 0; i < vectors.length; i++) {
      FieldVector vector = vectors[i];
      if (vector != null && !vector.isNull(row)) {
        record.set(i, value(vector, row, columns.get(i).type()));
      }
    }
    return record;
  }

  /** One column of one row, as {@link #record} sets it; null when the row has no value there. */
  public Object value(FieldVector[] vectors, int row, int column) {
    FieldVector vector = vectors[column];
    if (vector == null || vector.isNull(row)) {
      return null;
    }
    return value(vector, row, columns.get(column).type());
  }

  public Schema schema() {
    return schema;
  }

  private static Object value(FieldVector vector, int row, Type type) {
    if (vector instanceof TimeStampVector timestamps) {
      long value = timestamps.get(row);
      return switch (type.typeId()) {
        case TIMESTAMP ->
            ((Types.TimestampType) type).shouldAdjustToUTC()
                ? DateTimeUtil.timestamptzFromMicros(value)
                : DateTimeUtil.timestampFromMicros(value);
        case TIMESTAMP_NANO ->
            ((Types.TimestampNanoType) type).shouldAdjustToUTC()
                ? DateTimeUtil.timestamptzFromNanos(value)
                : DateTimeUtil.timestampFromNanos(value);
        default -> throw mismatch(vector, type);
      };
    }
    Object value = ArrowValues.get(vector, row);
    switch (type.typeId()) {
      case BOOLEAN:
      case INTEGER:
      case FLOAT:
      case STRING:
        return value;
      case LONG:
        return ((Number) value).longValue();
      case DOUBLE:
        return ((Number) value).doubleValue();
      case DECIMAL:
        return (BigDecimal) value;
      case DATE:
        return LocalDate.ofEpochDay((Integer) value);
      case TIME:
        return LocalTime.ofNanoOfDay((Long) value * 1_000);
      case UUID:
        return UUIDUtil.convert((byte[]) value);
      case FIXED:
        return value;
      case BINARY:
        return ByteBuffer.wrap((byte[]) value);
      default:
        throw mismatch(vector, type);
    }
  }

  private static IllegalArgumentException mismatch(FieldVector vector, Type type) {
    return new IllegalArgumentException(
        "Cannot tier column "
            + vector.getName()
            + " of Arrow type "
            + vector.getField().getType()
            + " into Iceberg type "
            + type);
  }
}
