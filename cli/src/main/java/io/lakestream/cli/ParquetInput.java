package io.lakestream.cli;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.PlainReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Reads a Parquet file's rows for {@code produce}: top-level primitive columns mapped to the
 * table's columns by name, each value converted by its Parquet type (int32, int64, float, double,
 * boolean, binary and UTF-8 strings, date, time and timestamps in millis, micros or nanos, decimal)
 * to the Java value the client writes for the table column's Arrow type.
 */
final class ParquetInput {
  private ParquetInput() {}

  /**
   * Every row of the file, converted.
   *
   * @throws CliFailure naming the file, and the row number and column of a value that does not fit
   */
  static List<Object[]> read(String file, List<Field> fields, Map<String, Integer> positions)
      throws IOException {
    Path path = Path.of(file);
    if (!Files.isRegularFile(path)) {
      throw new CliFailure("No such file: " + file);
    }
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new LocalInputFile(path), PlainReadOptions.of(new ParquetCodecs()))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      int width = schema.getFieldCount();
      int[] columns = new int[width];
      for (int i = 0; i < width; i++) {
        Type type = schema.getType(i);
        Integer position = positions.get(type.getName());
        if (position == null) {
          throw new CliFailure(
              file
                  + ": Parquet column '"
                  + type.getName()
                  + "' names no column of the table (it has "
                  + positions.keySet().stream().sorted().toList()
                  + ")");
        }
        if (!type.isPrimitive() || type.isRepetition(Type.Repetition.REPEATED)) {
          throw new CliFailure(
              file + ": Parquet column '" + type.getName() + "' is nested or repeated");
        }
        columns[i] = position;
      }
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      List<Object[]> rows = new ArrayList<>();
      long row = 0;
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records = io.getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0, n = pages.getRowCount(); i < n; i++) {
          Group group = records.read();
          row++;
          Object[] values = new Object[fields.size()];
          for (int c = 0; c < width; c++) {
            Field field = fields.get(columns[c]);
            if (group.getFieldRepetitionCount(c) == 0) {
              continue;
            }
            try {
              values[columns[c]] = convert(group, c, schema.getType(c).asPrimitiveType(), field);
            } catch (IllegalArgumentException | ArithmeticException e) {
              throw new CliFailure(
                  file + " row " + row + ": column " + field.getName() + ": " + e.getMessage());
            }
          }
          for (int c = 0; c < values.length; c++) {
            if (values[c] == null && !fields.get(c).isNullable()) {
              throw new CliFailure(
                  file
                      + " row "
                      + row
                      + ": column "
                      + fields.get(c).getName()
                      + " is required (not null)");
            }
          }
          rows.add(values);
        }
      }
      return rows;
    } catch (IOException | RuntimeException e) {
      if (e instanceof CliFailure) {
        throw e;
      }
      throw new CliFailure(file + ": not a readable Parquet file (" + e.getMessage() + ")", e);
    }
  }

  private static Object convert(Group group, int c, PrimitiveType parquet, Field field) {
    ArrowType type = field.getType();
    LogicalTypeAnnotation logical = parquet.getLogicalTypeAnnotation();
    switch (parquet.getPrimitiveTypeName()) {
      case INT32 -> {
        int value = group.getInteger(c, 0);
        if (logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
          if (type instanceof ArrowType.Date) {
            return LocalDate.ofEpochDay(value);
          }
        } else if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal) {
          return decimal(BigInteger.valueOf(value), decimal, type, parquet);
        } else if (logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
          if (type instanceof ArrowType.Time) {
            return value * 1000L; // int32 times are millis
          }
        } else if (type instanceof ArrowType.Int integer) {
          return integer(value, integer);
        }
      }
      case INT64 -> {
        long value = group.getLong(c, 0);
        if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation timestamp) {
          if (type instanceof ArrowType.Timestamp) {
            return micros(value, timestamp.getUnit());
          }
        } else if (logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation time) {
          if (type instanceof ArrowType.Time) {
            return micros(value, time.getUnit());
          }
        } else if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal) {
          return decimal(BigInteger.valueOf(value), decimal, type, parquet);
        } else if (type instanceof ArrowType.Int integer) {
          return integer(value, integer);
        }
      }
      case FLOAT, DOUBLE -> {
        if (type instanceof ArrowType.FloatingPoint floating) {
          double value =
              parquet.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FLOAT
                  ? group.getFloat(c, 0)
                  : group.getDouble(c, 0);
          return floating.getPrecision() == FloatingPointPrecision.SINGLE
              ? (Object) (float) value
              : (Object) value;
        }
      }
      case BOOLEAN -> {
        if (type instanceof ArrowType.Bool) {
          return group.getBoolean(c, 0);
        }
      }
      case BINARY, FIXED_LEN_BYTE_ARRAY -> {
        byte[] bytes = group.getBinary(c, 0).getBytes();
        if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal) {
          return decimal(new BigInteger(bytes), decimal, type, parquet);
        }
        boolean text =
            logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation;
        if (text && type instanceof ArrowType.Utf8) {
          return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        if (!text
            && (type instanceof ArrowType.Binary || type instanceof ArrowType.FixedSizeBinary)) {
          return bytes;
        }
      }
      default -> {}
    }
    throw mismatch(parquet, type);
  }

  private static IllegalArgumentException mismatch(PrimitiveType parquet, ArrowType type) {
    LogicalTypeAnnotation logical = parquet.getLogicalTypeAnnotation();
    return new IllegalArgumentException(
        "Parquet type "
            + parquet.getPrimitiveTypeName().name().toLowerCase(java.util.Locale.ROOT)
            + (logical == null ? "" : " (" + logical + ")")
            + " does not fit the table's type "
            + type);
  }

  private static Object integer(long value, ArrowType.Int integer) {
    return switch (integer.getBitWidth()) {
      case 64 -> value;
      case 32 -> Math.toIntExact(value);
      case 16 -> (short) range(value, Short.MIN_VALUE, Short.MAX_VALUE);
      case 8 -> (byte) range(value, Byte.MIN_VALUE, Byte.MAX_VALUE);
      default -> throw new IllegalArgumentException("unsupported integer width");
    };
  }

  private static long range(long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException("value " + value + " is out of range");
    }
    return value;
  }

  private static long micros(long value, LogicalTypeAnnotation.TimeUnit unit) {
    return switch (unit) {
      case MILLIS -> Math.multiplyExact(value, 1000L);
      case MICROS -> value;
      case NANOS -> Math.floorDiv(value, 1000L);
    };
  }

  private static BigDecimal decimal(
      BigInteger unscaled,
      LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal,
      ArrowType type,
      PrimitiveType parquet) {
    if (!(type instanceof ArrowType.Decimal target)) {
      throw mismatch(parquet, type);
    }
    BigDecimal value = new BigDecimal(unscaled, decimal.getScale());
    try {
      return value.setScale(target.getScale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "value " + value + " does not fit decimal scale " + target.getScale());
    }
  }
}
