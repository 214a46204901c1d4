package io.lakestream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.Locale;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Column values between their text forms (CSV cells, JSON values, key arguments, output) and the
 * Java values the client writes and reads, by the column's Arrow type: Long, Integer, Double,
 * Float, Boolean, String, byte[] (hex in text), BigDecimal, LocalDate (day number when read), Long
 * microseconds for time and timestamps (ISO-8601 in text; a timestamp without zone is UTC).
 */
final class Values {
  private static final HexFormat HEX = HexFormat.of();

  private Values() {}

  /**
   * Parses a non-null text value for a column.
   *
   * @throws IllegalArgumentException naming the column and what was expected
   */
  static Object parse(Field field, String text) {
    ArrowType type = field.getType();
    try {
      if (type instanceof ArrowType.Int integer) {
        long value = Long.parseLong(text.trim());
        return switch (integer.getBitWidth()) {
          case 64 -> value;
          case 32 -> Math.toIntExact(value);
          case 8 -> (byte) Math.toIntExact(value);
          default -> throw new IllegalArgumentException("unsupported integer width");
        };
      }
      if (type instanceof ArrowType.FloatingPoint floating) {
        double value = Double.parseDouble(text.trim());
        return floating.getPrecision()
                == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE
            ? (Object) (float) value
            : (Object) value;
      }
      if (type instanceof ArrowType.Bool) {
        String lower = text.trim().toLowerCase(Locale.ROOT);
        if (lower.equals("true") || lower.equals("false")) {
          return Boolean.parseBoolean(lower);
        }
        throw new IllegalArgumentException("expected true or false");
      }
      if (type instanceof ArrowType.Utf8) {
        return text;
      }
      if (type instanceof ArrowType.Binary || type instanceof ArrowType.FixedSizeBinary) {
        return HEX.parseHex(text.trim());
      }
      if (type instanceof ArrowType.Decimal decimal) {
        return new BigDecimal(text.trim()).setScale(decimal.getScale(), RoundingMode.UNNECESSARY);
      }
      if (type instanceof ArrowType.Date) {
        return LocalDate.parse(text.trim());
      }
      if (type instanceof ArrowType.Time) {
        return LocalTime.parse(text.trim()).toNanoOfDay() / 1000;
      }
      if (type instanceof ArrowType.Timestamp) {
        return timestampMicros(text.trim());
      }
    } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          "value '" + text + "' of column " + field.getName() + " is not a " + describe(type));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "value '"
              + text
              + "' of column "
              + field.getName()
              + " is not a "
              + describe(type)
              + ": "
              + e.getMessage());
    }
    throw new IllegalArgumentException(
        "column " + field.getName() + " has type " + type + ", which this command cannot write");
  }

  /** Parses a JSON value for a column; JSON null is null. */
  static Object parse(Field field, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    ArrowType type = field.getType();
    if (node.isTextual()) {
      return parse(field, node.asText());
    }
    if (type instanceof ArrowType.Utf8) {
      if (node.isContainerNode()) {
        throw new IllegalArgumentException(
            "value " + node + " of column " + field.getName() + " is not a string");
      }
      return node.asText();
    }
    if (node.isNumber() && type instanceof ArrowType.Timestamp) {
      return node.asLong();
    }
    if (node.isBoolean() || node.isNumber()) {
      return parse(field, node.asText());
    }
    throw new IllegalArgumentException(
        "value " + node + " of column " + field.getName() + " is not a " + describe(type));
  }

  private static long timestampMicros(String text) {
    if (text.matches("-?[0-9]+")) {
      return Long.parseLong(text);
    }
    Instant instant;
    try {
      instant = OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      instant = LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    }
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }

  private static String describe(ArrowType type) {
    if (type instanceof ArrowType.Int integer) {
      return integer.getBitWidth() + "-bit integer";
    }
    if (type instanceof ArrowType.FloatingPoint) {
      return "number";
    }
    if (type instanceof ArrowType.Bool) {
      return "boolean";
    }
    if (type instanceof ArrowType.Binary || type instanceof ArrowType.FixedSizeBinary) {
      return "hex string";
    }
    if (type instanceof ArrowType.Decimal decimal) {
      return "decimal(" + decimal.getPrecision() + "," + decimal.getScale() + ")";
    }
    if (type instanceof ArrowType.Date) {
      return "date (YYYY-MM-DD)";
    }
    if (type instanceof ArrowType.Time) {
      return "time (HH:MM:SS)";
    }
    if (type instanceof ArrowType.Timestamp) {
      return "timestamp (ISO-8601 or microseconds since 1970)";
    }
    return type.toString();
  }

  /** A value read from the table, as text (null as the empty string's caller decides). */
  static String format(Field field, Object value) {
    if (value == null) {
      return null;
    }
    ArrowType type = field.getType();
    if (type instanceof ArrowType.Date && value instanceof Integer days) {
      return LocalDate.ofEpochDay(days).toString();
    }
    if (type instanceof ArrowType.Timestamp timestamp && value instanceof Long micros) {
      Instant instant = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
      return timestamp.getTimezone() == null
          ? DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
              LocalDateTime.ofInstant(instant, ZoneOffset.UTC))
          : instant.toString();
    }
    if (type instanceof ArrowType.Time && value instanceof Long micros) {
      return DateTimeFormatter.ISO_LOCAL_TIME.format(LocalTime.ofNanoOfDay(micros * 1000));
    }
    if (value instanceof byte[] bytes) {
      return HEX.formatHex(bytes);
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    if (value instanceof org.apache.arrow.vector.util.Text text) {
      return text.toString();
    }
    if (value instanceof LocalDateTime dateTime) {
      return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(dateTime);
    }
    return String.valueOf(value);
  }

  /** Whether a formatted value is written as a JSON number or boolean rather than a string. */
  static boolean isJsonLiteral(Field field) {
    ArrowType type = field.getType();
    return type instanceof ArrowType.Int
        || type instanceof ArrowType.FloatingPoint
        || type instanceof ArrowType.Bool
        || type instanceof ArrowType.Decimal;
  }
}
