package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.arrow.ColumnStats;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Which partition a row of a partitioned streaming table belongs to, under one schema of the table.
 *
 * <p>A partition is named as Iceberg names partition paths: {@code field=value} per partition
 * field, joined by {@code /}, each value in Iceberg's human form ({@code 2026}, {@code 2026-11},
 * {@code 2026-11-30}, {@code 2026-11-30-14} for year, month, day and hour; the value itself for
 * identity) and URL-encoded; a null value is {@code null}. An unpartitioned table has one
 * partition, named by the empty string.
 *
 * <p>Supported, as the catalog checks when a streaming table is created: {@code identity} of
 * boolean, int, long, date and string columns (string values of at most {@value
 * #MAX_STRING_VALUE_BYTES} UTF-8 bytes), {@code year}, {@code month} and {@code day} of date and
 * timestamp columns, and {@code hour} of timestamp columns. Every transform is monotonic, so a
 * batch whose smallest and largest values fall in one partition lies wholly in it: the server
 * checks a batch's partition from its statistics alone ({@link #partitionOf(BatchStatistics)}).
 *
 * <p>Immutable and thread safe; {@link #rowPartitioner()} gives a caching, single-threaded view.
 */
public final class Partitioning {
  /** Longest string identity value: batch statistics keep string bounds up to 64 bytes exactly. */
  public static final int MAX_STRING_VALUE_BYTES = ColumnStats.MAX_BINARY_BOUND_LENGTH - 1;

  /** The one partition of an unpartitioned table. */
  public static final String UNPARTITIONED = "";

  /** The partitioning of an unpartitioned table: every row is in {@link #UNPARTITIONED}. */
  public static final Partitioning NONE = new Partitioning(List.of(), new Source[0]);

  private static final long MICROS_PER_HOUR = 3_600_000_000L;
  private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

  private enum Transform {
    IDENTITY,
    YEAR,
    MONTH,
    DAY,
    HOUR
  }

  /** How a source column's values read. */
  private enum Values {
    LONG,
    BOOLEAN,
    DATE,
    TIMESTAMP,
    STRING
  }

  private record Source(PartitionField field, int column, Transform transform, Values values) {}

  private final List<PartitionField> fields;
  private final Source[] sources;

  private Partitioning(List<PartitionField> fields, Source[] sources) {
    this.fields = List.copyOf(fields);
    this.sources = sources;
  }

  /**
   * The partitioning of rows written with {@code schema}.
   *
   * @param fields the partition spec's fields, such as {@link Table#partitionFields()}
   * @param schema the Arrow schema the rows are written with (see {@link Table#arrowSchema})
   * @return the partitioning; {@link #NONE} when {@code fields} is empty
   * @throws IllegalArgumentException naming the field, when a source column is missing from the
   *     schema or a transform does not apply to its type
   */
  public static Partitioning of(List<PartitionField> fields, Schema schema) {
    requireNonNull(fields, "fields is null");
    requireNonNull(schema, "schema is null");
    if (fields.isEmpty()) {
      return NONE;
    }
    Source[] sources = new Source[fields.size()];
    for (int i = 0; i < sources.length; i++) {
      PartitionField field = fields.get(i);
      int column = columnOf(schema, field);
      if (column < 0) {
        throw new IllegalArgumentException(
            "Partition field "
                + field.name()
                + ": the schema has no column "
                + field.sourceColumn()
                + " (field id "
                + field.sourceFieldId()
                + ")");
      }
      Transform transform = transform(field);
      Values values = values(field, schema.getFields().get(column).getType(), transform);
      sources[i] = new Source(field, column, transform, values);
    }
    return new Partitioning(fields, sources);
  }

  private static int columnOf(Schema schema, PartitionField field) {
    List<Field> columns = schema.getFields();
    String id = Integer.toString(field.sourceFieldId());
    for (int i = 0; i < columns.size(); i++) {
      if (id.equals(columns.get(i).getMetadata().get(IcebergArrowSchemas.FIELD_ID_KEY))) {
        return i;
      }
    }
    return LogScanner.indexOf(schema, field.sourceColumn());
  }

  private static Transform transform(PartitionField field) {
    return switch (field.transform()) {
      case "identity" -> Transform.IDENTITY;
      case "year" -> Transform.YEAR;
      case "month" -> Transform.MONTH;
      case "day" -> Transform.DAY;
      case "hour" -> Transform.HOUR;
      default ->
          throw new IllegalArgumentException(
              "Partition field "
                  + field.name()
                  + ": transform "
                  + field.transform()
                  + " is not supported for streaming tables (identity, year, month, day and hour"
                  + " are)");
    };
  }

  private static Values values(PartitionField field, ArrowType type, Transform transform) {
    Values values = null;
    if (type instanceof ArrowType.Int integer
        && integer.getIsSigned()
        && integer.getBitWidth() >= 32) {
      values = Values.LONG;
    } else if (type instanceof ArrowType.Bool) {
      values = Values.BOOLEAN;
    } else if (type instanceof ArrowType.Date date && date.getUnit() == DateUnit.DAY) {
      values = Values.DATE;
    } else if (type instanceof ArrowType.Timestamp timestamp
        && timestamp.getUnit() == TimeUnit.MICROSECOND) {
      values = Values.TIMESTAMP;
    } else if (type instanceof ArrowType.Utf8) {
      values = Values.STRING;
    }
    boolean fits =
        values != null
            && switch (transform) {
              case IDENTITY -> values != Values.TIMESTAMP;
              case YEAR, MONTH, DAY -> values == Values.DATE || values == Values.TIMESTAMP;
              case HOUR -> values == Values.TIMESTAMP;
            };
    if (!fits) {
      throw new IllegalArgumentException(
          "Partition field "
              + field.name()
              + ": transform "
              + field.transform()
              + " cannot apply to column "
              + field.sourceColumn()
              + " of type "
              + type
              + " in a streaming table");
    }
    return values;
  }

  /**
   * Whether there are partition fields.
   *
   * @return {@code false} for {@link #NONE}
   */
  public boolean isPartitioned() {
    return sources.length > 0;
  }

  /**
   * The partition fields, in spec order.
   *
   * @return an immutable list; empty for {@link #NONE}
   */
  public List<PartitionField> fields() {
    return fields;
  }

  /**
   * The partition of a row given as {@link AppendWriter#append(Object...)} takes it.
   *
   * @param row the row's values in schema order
   * @return the partition's name, such as {@code ts_day=2026-11-30}; {@link #UNPARTITIONED} for
   *     {@link #NONE}
   * @throws IllegalArgumentException for a source value of the wrong type or a string value too
   *     long to be a partition value
   */
  public String partitionOf(Object[] row) {
    if (sources.length == 0) {
      return UNPARTITIONED;
    }
    StringBuilder name = new StringBuilder();
    for (Source source : sources) {
      appendSegment(name, source, ordinal(source, row[source.column()]));
    }
    return name.toString();
  }

  /**
   * A partitioner for one thread that remembers the last row's partition, since consecutive rows
   * mostly share it.
   *
   * @return a new partitioner, to be used by one thread
   */
  public RowPartitioner rowPartitioner() {
    return new RowPartitioner();
  }

  /**
   * The partition all rows of a batch belong to, from the batch's statistics.
   *
   * @param statistics the batch's column statistics, by schema position
   * @return the partition's name; {@link #UNPARTITIONED} for {@link #NONE}
   * @throws IllegalArgumentException when the rows span partitions, or the statistics cannot tell
   *     (a string value longer than {@value #MAX_STRING_VALUE_BYTES} bytes)
   */
  public String partitionOf(BatchStatistics statistics) {
    if (sources.length == 0) {
      return UNPARTITIONED;
    }
    StringBuilder name = new StringBuilder();
    for (Source source : sources) {
      ColumnStats column = statistics.column(source.column());
      Object partition;
      if (column.nullCount() == statistics.rowCount()) {
        partition = null;
      } else if (column.nullCount() > 0) {
        throw spans(source, "null and non-null values");
      } else if (!column.hasBounds()) {
        throw new IllegalArgumentException(
            "Column " + source.field().sourceColumn() + " has no bounds to place the batch by");
      } else if (source.values() == Values.STRING) {
        byte[] lower = (byte[]) column.lowerBound();
        byte[] upper = (byte[]) column.upperBound();
        if (lower.length > MAX_STRING_VALUE_BYTES || !Arrays.equals(lower, upper)) {
          throw spans(source, "several values or a value longer than the limit");
        }
        partition = new String(lower, StandardCharsets.UTF_8);
      } else {
        long lower = ordinal(source, ((Long) column.lowerBound()).longValue());
        long upper = ordinal(source, ((Long) column.upperBound()).longValue());
        if (lower != upper) {
          throw spans(source, "partitions " + human(source, lower) + " to " + human(source, upper));
        }
        partition = lower;
      }
      appendSegment(name, source, partition);
    }
    return name.toString();
  }

  private static IllegalArgumentException spans(Source source, String what) {
    return new IllegalArgumentException(
        "The batch's rows span partitions: partition field "
            + source.field().name()
            + " has "
            + what);
  }

  /** The partition value: a Long ordinal for every transform but string identity, or null. */
  private static Object ordinal(Source source, Object value) {
    if (value == null) {
      return null;
    }
    switch (source.values()) {
      case STRING -> {
        if (!(value instanceof CharSequence text)) {
          throw wrongType(source, value);
        }
        String string = text.toString();
        if (string.length() > MAX_STRING_VALUE_BYTES / 3
            && string.getBytes(StandardCharsets.UTF_8).length > MAX_STRING_VALUE_BYTES) {
          throw new IllegalArgumentException(
              "Column "
                  + source.field().sourceColumn()
                  + " is a partition source: its values may have at most "
                  + MAX_STRING_VALUE_BYTES
                  + " UTF-8 bytes");
        }
        return string;
      }
      case BOOLEAN -> {
        if (!(value instanceof Boolean flag)) {
          throw wrongType(source, value);
        }
        return flag ? 1L : 0L;
      }
      case DATE -> {
        long days;
        if (value instanceof LocalDate date) {
          days = date.toEpochDay();
        } else if (value instanceof Integer || value instanceof Long) {
          days = ((Number) value).longValue();
        } else {
          throw wrongType(source, value);
        }
        return ordinal(source, days);
      }
      default -> {
        if (!(value instanceof Integer || value instanceof Long)) {
          throw wrongType(source, value);
        }
        return ordinal(source, ((Number) value).longValue());
      }
    }
  }

  private static IllegalArgumentException wrongType(Source source, Object value) {
    return new IllegalArgumentException(
        "Column "
            + source.field().sourceColumn()
            + " cannot hold a "
            + value.getClass().getSimpleName());
  }

  /** The transform of a numeric source value (days for dates, microseconds for timestamps). */
  private static long ordinal(Source source, long value) {
    long days = source.values() == Values.DATE ? value : Math.floorDiv(value, MICROS_PER_DAY);
    return switch (source.transform()) {
      case IDENTITY -> value;
      case DAY -> days;
      case HOUR -> Math.floorDiv(value, MICROS_PER_HOUR);
      case MONTH -> {
        LocalDate date = LocalDate.ofEpochDay(days);
        yield (date.getYear() - 1970L) * 12 + date.getMonthValue() - 1;
      }
      case YEAR -> LocalDate.ofEpochDay(days).getYear() - 1970L;
    };
  }

  private static void appendSegment(StringBuilder name, Source source, Object partition) {
    if (!name.isEmpty()) {
      name.append('/');
    }
    name.append(source.field().name()).append('=');
    if (partition == null) {
      name.append("null");
    } else if (partition instanceof String text) {
      name.append(URLEncoder.encode(text, StandardCharsets.UTF_8));
    } else {
      name.append(URLEncoder.encode(human(source, (Long) partition), StandardCharsets.UTF_8));
    }
  }

  /** Iceberg's human form of a transformed value. */
  private static String human(Source source, long ordinal) {
    return switch (source.transform()) {
      case IDENTITY ->
          switch (source.values()) {
            case BOOLEAN -> ordinal == 1 ? "true" : "false";
            case DATE -> LocalDate.ofEpochDay(ordinal).toString();
            default -> Long.toString(ordinal);
          };
      case YEAR -> String.format("%04d", 1970 + ordinal);
      case MONTH ->
          String.format(
              "%04d-%02d", 1970 + Math.floorDiv(ordinal, 12), Math.floorMod(ordinal, 12) + 1);
      case DAY -> LocalDate.ofEpochDay(ordinal).toString();
      case HOUR -> {
        LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(ordinal, 24));
        yield String.format("%s-%02d", day, Math.floorMod(ordinal, 24));
      }
    };
  }

  /** Partitions rows one after another; remembers the last partition. Not thread safe. */
  public final class RowPartitioner {
    private final Object[] last = new Object[sources.length];
    private String lastName;

    private RowPartitioner() {}

    /**
     * As {@link Partitioning#partitionOf(Object[])}.
     *
     * @param row the row's values in schema order
     * @return the partition's name
     * @throws IllegalArgumentException for a source value of the wrong type or a string value too
     *     long to be a partition value
     */
    public String partitionOf(Object[] row) {
      if (sources.length == 0) {
        return UNPARTITIONED;
      }
      Object[] current = new Object[sources.length];
      boolean same = lastName != null;
      for (int i = 0; i < sources.length; i++) {
        current[i] = ordinal(sources[i], row[sources[i].column()]);
        same = same && java.util.Objects.equals(current[i], last[i]);
      }
      if (same) {
        return lastName;
      }
      StringBuilder name = new StringBuilder();
      for (int i = 0; i < sources.length; i++) {
        appendSegment(name, sources[i], current[i]);
        last[i] = current[i];
      }
      lastName = name.toString();
      return lastName;
    }
  }
}
