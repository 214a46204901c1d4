package io.lakestream.lake.paimon;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.RowKind;

/**
 * Turns Iceberg generic records of a table's schema (as {@link io.lakestream.lake.LakeRecords}
 * makes them from log rows) into Paimon rows of the table's Paimon schema, which has the same
 * columns in the same order ({@link PaimonTables}). Stateless and thread safe.
 */
final class PaimonRows {
  private final List<Types.NestedField> columns;

  PaimonRows(Schema schema) {
    this.columns = requireNonNull(schema, "schema is null").columns();
  }

  GenericRow row(Record record, RowKind kind) {
    GenericRow row = new GenericRow(kind, columns.size());
    for (int i = 0; i < columns.size(); i++) {
      Object value = record.get(i);
      row.setField(i, value == null ? null : value(value, columns.get(i).type()));
    }
    return row;
  }

  private static Object value(Object value, Type type) {
    return switch (type.typeId()) {
      case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE -> value;
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        yield Decimal.fromBigDecimal((BigDecimal) value, decimal.precision(), decimal.scale());
      }
      case DATE -> (int) ((LocalDate) value).toEpochDay();
      case STRING -> BinaryString.fromString(value.toString());
      case BINARY -> {
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        yield bytes;
      }
      case TIMESTAMP ->
          value instanceof OffsetDateTime instant
              ? Timestamp.fromInstant(instant.toInstant())
              : Timestamp.fromLocalDateTime((LocalDateTime) value);
      default ->
          throw new IllegalArgumentException(
              "Cannot tier a value of type " + type + " into Paimon");
    };
  }
}
