package io.lakestream.flight.scan;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
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
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.data.Record;

/**
 * Writes Iceberg generic records into Arrow vectors of the schema {@link
 * io.lakestream.client.arrow.IcebergArrowSchemas} maps the record's schema to, taking the Java
 * values Iceberg's generic data model uses: {@code LocalDate}, {@code LocalTime}, {@code
 * OffsetDateTime} (timestamptz), {@code LocalDateTime} (timestamp), {@code BigDecimal}, {@code
 * ByteBuffer} (binary, fixed), {@code UUID} and the boxed primitives. Not thread safe.
 */
public final class RecordVectors {
  private final VectorSchemaRoot root;
  private final List<FieldVector> vectors;
  private int rows;

  public RecordVectors(VectorSchemaRoot root) {
    this.root = root;
    this.vectors = root.getFieldVectors();
  }

  public int rows() {
    return rows;
  }

  /** Appends a record; the record has the columns of the root, in its order. */
  public void add(Record record) {
    for (int column = 0; column < vectors.size(); column++) {
      set(vectors.get(column), rows, record.get(column));
    }
    rows++;
  }

  /** Sets the row count of the root to the rows added: call before handing the root on. */
  public VectorSchemaRoot finish() {
    root.setRowCount(rows);
    return root;
  }

  /** Empties the vectors for the next chunk of rows. */
  public void clear() {
    for (FieldVector vector : vectors) {
      vector.reset();
    }
    rows = 0;
    root.setRowCount(0);
  }

  private static void set(FieldVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
      return;
    }
    switch (vector) {
      case BitVector bits -> bits.setSafe(row, (Boolean) value ? 1 : 0);
      case IntVector ints -> ints.setSafe(row, ((Number) value).intValue());
      case BigIntVector longs -> longs.setSafe(row, ((Number) value).longValue());
      case Float4Vector floats -> floats.setSafe(row, ((Number) value).floatValue());
      case Float8Vector doubles -> doubles.setSafe(row, ((Number) value).doubleValue());
      case DecimalVector decimals -> decimals.setSafe(row, (BigDecimal) value);
      case DateDayVector days -> days.setSafe(row, (int) ((LocalDate) value).toEpochDay());
      case TimeMicroVector times -> times.setSafe(row, ((LocalTime) value).toNanoOfDay() / 1_000);
      case TimeStampMicroTZVector timestamps ->
          timestamps.setSafe(row, ChronoUnit.MICROS.between(EPOCH, (OffsetDateTime) value));
      case TimeStampMicroVector timestamps ->
          timestamps.setSafe(
              row, ChronoUnit.MICROS.between(EPOCH, ((LocalDateTime) value).atOffset(UTC)));
      case TimeStampNanoTZVector timestamps ->
          timestamps.setSafe(row, ChronoUnit.NANOS.between(EPOCH, (OffsetDateTime) value));
      case TimeStampNanoVector timestamps ->
          timestamps.setSafe(
              row, ChronoUnit.NANOS.between(EPOCH, ((LocalDateTime) value).atOffset(UTC)));
      case VarCharVector strings ->
          strings.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
      case FixedSizeBinaryVector fixed -> fixed.setSafe(row, bytes(value));
      case VarBinaryVector binary -> binary.setSafe(row, bytes(value));
      default ->
          throw new IllegalArgumentException(
              "Cannot write a " + value.getClass().getName() + " into " + vector.getField());
    }
  }

  private static final ZoneOffset UTC = ZoneOffset.UTC;
  private static final OffsetDateTime EPOCH = OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, UTC);

  private static byte[] bytes(Object value) {
    return switch (value) {
      case byte[] array -> array;
      case ByteBuffer buffer -> {
        byte[] array = new byte[buffer.remaining()];
        buffer.duplicate().get(array);
        yield array;
      }
      case UUID uuid ->
          ByteBuffer.allocate(16)
              .putLong(uuid.getMostSignificantBits())
              .putLong(uuid.getLeastSignificantBits())
              .array();
      default ->
          throw new IllegalArgumentException("Not a binary value: " + value.getClass().getName());
    };
  }
}
