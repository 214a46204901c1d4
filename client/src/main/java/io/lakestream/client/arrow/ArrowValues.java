package io.lakestream.client.arrow;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Values of Arrow vectors as the plain Java values rows are written with: Long, Integer, Float,
 * Double, Boolean, BigDecimal, String, byte[], Integer days for dates and Long microseconds for
 * times and timestamps. Also the changelog schema of primary-key tables, whose log batches carry
 * the table's columns and then a change-type column.
 */
public final class ArrowValues {
  /** The last column of a primary-key table's log batches: each row's change type code. */
  public static final String CHANGE_TYPE_COLUMN = "_change_type";

  private ArrowValues() {}

  /**
   * A table schema with the change-type column appended, for a primary-key table's changelog.
   *
   * @param schema the table's row schema
   * @return a new schema with {@link #CHANGE_TYPE_COLUMN} (a non-null int8) as its last field
   */
  public static Schema withChangeType(Schema schema) {
    List<Field> fields = new ArrayList<>(schema.getFields());
    fields.add(
        new Field(CHANGE_TYPE_COLUMN, FieldType.notNullable(new ArrowType.Int(8, true)), null));
    return new Schema(fields, schema.getCustomMetadata());
  }

  /**
   * The value of one row of a vector; null for a null.
   *
   * @param vector a vector of a type rows are written with
   * @param row the row's index
   * @return the value as described in the class comment (a TINYINT as a Byte), or null
   * @throws IllegalArgumentException for a vector type rows are not written with (lists, structs,
   *     ...)
   */
  public static Object get(FieldVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    if (vector instanceof BigIntVector v) {
      return v.get(row);
    } else if (vector instanceof IntVector v) {
      return v.get(row);
    } else if (vector instanceof VarCharVector v) {
      return new String(v.get(row), StandardCharsets.UTF_8);
    } else if (vector instanceof Float8Vector v) {
      return v.get(row);
    } else if (vector instanceof TimeStampMicroTZVector v) {
      return v.get(row);
    } else if (vector instanceof TimeStampMicroVector v) {
      return v.get(row);
    } else if (vector instanceof DateDayVector v) {
      return v.get(row);
    } else if (vector instanceof TimeMicroVector v) {
      return v.get(row);
    } else if (vector instanceof Float4Vector v) {
      return v.get(row);
    } else if (vector instanceof BitVector v) {
      return v.get(row) == 1;
    } else if (vector instanceof DecimalVector v) {
      return v.getObject(row);
    } else if (vector instanceof VarBinaryVector v) {
      return v.get(row);
    } else if (vector instanceof FixedSizeBinaryVector v) {
      return v.get(row);
    } else if (vector instanceof TinyIntVector v) {
      return v.get(row);
    }
    throw new IllegalArgumentException(
        "Unsupported column type " + vector.getField().getType() + " of " + vector.getName());
  }

  /**
   * The rows of a root, with the values of its first {@code columns} columns.
   *
   * @param root the batch
   * @param columns how many leading columns to read (for a changelog, the row's columns without the
   *     change type)
   * @return one array of values per row; slow, allocating per value
   * @throws IllegalArgumentException for a column type rows are not written with
   */
  public static List<Object[]> rows(VectorSchemaRoot root, int columns) {
    List<FieldVector> vectors = root.getFieldVectors();
    List<Object[]> rows = new ArrayList<>(root.getRowCount());
    for (int row = 0; row < root.getRowCount(); row++) {
      Object[] values = new Object[columns];
      for (int column = 0; column < columns; column++) {
        values[column] = get(vectors.get(column), row);
      }
      rows.add(values);
    }
    return rows;
  }
}
