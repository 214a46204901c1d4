package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One comparison of a top-level column against a literal ({@code column op literal}), or a null
 * test. It is part of a {@link BatchFilter}, which the server checks against {@link
 * BatchStatistics} to skip batches in which no row can match; it never filters rows.
 *
 * <p>Literals are in the column's storage representation: {@link Long} for integers, dates (days),
 * times and timestamps (in the column's unit, e.g. microseconds), {@link Boolean} for booleans,
 * {@link Double} for floating point, {@link String} or {@code byte[]} for strings and binary
 * (compared as unsigned bytes, so strings compare by UTF-8 bytes), {@link BigDecimal} for decimals.
 * {@link Integer}, {@link Short} and {@link Byte} are widened to {@code Long} and {@link Float} to
 * {@code Double} on construction. Comparisons follow SQL: a null never matches.
 *
 * <p>Immutable and thread-safe; a {@code byte[]} literal is copied in and out.
 *
 * @param column index of the top-level column in the batch's schema
 * @param op the comparison
 * @param literal the value to compare with; {@code null} exactly for {@link Op#IS_NULL} and {@link
 *     Op#IS_NOT_NULL}
 */
public record ColumnPredicate(int column, Op op, Object literal) {

  /** The comparisons a predicate can make. Codes are part of the filter wire format. */
  public enum Op {
    /** {@code column = literal} (code 1). */
    EQ(1, "="),
    /** {@code column < literal} (code 2). */
    LT(2, "<"),
    /** {@code column <= literal} (code 3). */
    LT_EQ(3, "<="),
    /** {@code column > literal} (code 4). */
    GT(4, ">"),
    /** {@code column >= literal} (code 5). */
    GT_EQ(5, ">="),
    /** {@code column IS NULL} (code 6); takes no literal. */
    IS_NULL(6, "IS NULL"),
    /** {@code column IS NOT NULL} (code 7); takes no literal. */
    IS_NOT_NULL(7, "IS NOT NULL");

    private final int code;
    private final String symbol;

    Op(int code, String symbol) {
      this.code = code;
      this.symbol = symbol;
    }

    /**
     * Whether the operator compares with a literal (all but the null tests).
     *
     * @return {@code false} for {@link #IS_NULL} and {@link #IS_NOT_NULL}
     */
    public boolean takesLiteral() {
      return this != IS_NULL && this != IS_NOT_NULL;
    }

    int code() {
      return code;
    }

    static Op fromCode(int code) {
      for (Op op : values()) {
        if (op.code == code) {
          return op;
        }
      }
      return null;
    }
  }

  /**
   * Checks the predicate and widens its literal (Integer, Short and Byte to Long, Float to Double).
   *
   * @throws IllegalArgumentException if the column is negative, or the literal is missing, present
   *     for a null test, or of an unsupported type
   */
  public ColumnPredicate {
    requireNonNull(op, "op is null");
    if (column < 0) {
      throw new IllegalArgumentException("Predicate column is negative: " + column);
    }
    if (!op.takesLiteral()) {
      if (literal != null) {
        throw new IllegalArgumentException(
            "Predicate column " + column + " " + op.symbol + " takes no literal, got " + literal);
      }
    } else {
      literal = normalize(column, op, literal);
    }
  }

  /**
   * The predicate {@code column = literal}.
   *
   * @param column index of the top-level column in the batch's schema
   * @param literal the value to compare with, as the class comment lists
   * @return the predicate
   * @throws IllegalArgumentException if the column is negative, or the literal is null or of an
   *     unsupported type
   */
  public static ColumnPredicate equal(int column, Object literal) {
    return new ColumnPredicate(column, Op.EQ, literal);
  }

  /**
   * The predicate {@code column < literal}.
   *
   * @param column index of the top-level column in the batch's schema
   * @param literal the value to compare with, as the class comment lists
   * @return the predicate
   * @throws IllegalArgumentException if the column is negative, or the literal is null or of an
   *     unsupported type
   */
  public static ColumnPredicate lessThan(int column, Object literal) {
    return new ColumnPredicate(column, Op.LT, literal);
  }

  /**
   * The predicate {@code column <= literal}.
   *
   * @param column index of the top-level column in the batch's schema
   * @param literal the value to compare with, as the class comment lists
   * @return the predicate
   * @throws IllegalArgumentException if the column is negative, or the literal is null or of an
   *     unsupported type
   */
  public static ColumnPredicate lessThanOrEqual(int column, Object literal) {
    return new ColumnPredicate(column, Op.LT_EQ, literal);
  }

  /**
   * The predicate {@code column > literal}.
   *
   * @param column index of the top-level column in the batch's schema
   * @param literal the value to compare with, as the class comment lists
   * @return the predicate
   * @throws IllegalArgumentException if the column is negative, or the literal is null or of an
   *     unsupported type
   */
  public static ColumnPredicate greaterThan(int column, Object literal) {
    return new ColumnPredicate(column, Op.GT, literal);
  }

  /**
   * The predicate {@code column >= literal}.
   *
   * @param column index of the top-level column in the batch's schema
   * @param literal the value to compare with, as the class comment lists
   * @return the predicate
   * @throws IllegalArgumentException if the column is negative, or the literal is null or of an
   *     unsupported type
   */
  public static ColumnPredicate greaterThanOrEqual(int column, Object literal) {
    return new ColumnPredicate(column, Op.GT_EQ, literal);
  }

  /**
   * The predicate {@code column IS NULL}.
   *
   * @param column index of the top-level column in the batch's schema
   * @return the predicate
   * @throws IllegalArgumentException if the column is negative
   */
  public static ColumnPredicate isNull(int column) {
    return new ColumnPredicate(column, Op.IS_NULL, null);
  }

  /**
   * The predicate {@code column IS NOT NULL}.
   *
   * @param column index of the top-level column in the batch's schema
   * @return the predicate
   * @throws IllegalArgumentException if the column is negative
   */
  public static ColumnPredicate isNotNull(int column) {
    return new ColumnPredicate(column, Op.IS_NOT_NULL, null);
  }

  /**
   * The literal; a {@code byte[]} literal is returned as a copy.
   *
   * @return the literal, or null for a null test
   */
  @Override
  public Object literal() {
    return literal instanceof byte[] ? ((byte[]) literal).clone() : literal;
  }

  /** The literal without a defensive copy, for code of this package that only reads it. */
  Object literalView() {
    return literal;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ColumnPredicate)) {
      return false;
    }
    ColumnPredicate that = (ColumnPredicate) other;
    return column == that.column && op == that.op && Objects.deepEquals(literal, that.literal);
  }

  @Override
  public int hashCode() {
    int literalHash =
        literal instanceof byte[] ? Arrays.hashCode((byte[]) literal) : Objects.hashCode(literal);
    return Objects.hash(column, op, literalHash);
  }

  @Override
  public String toString() {
    if (!op.takesLiteral()) {
      return "column " + column + " " + op.symbol;
    }
    String shown;
    if (literal instanceof byte[]) {
      shown = "X'" + hex((byte[]) literal) + "'";
    } else if (literal instanceof String) {
      shown = "'" + literal + "'";
    } else {
      shown = String.valueOf(literal);
    }
    return "column " + column + " " + op.symbol + " " + shown;
  }

  private static Object normalize(int column, Op op, Object literal) {
    if (literal == null) {
      throw new IllegalArgumentException(
          "Predicate column " + column + " " + op.symbol + " needs a literal");
    }
    if (literal instanceof Integer || literal instanceof Short || literal instanceof Byte) {
      return ((Number) literal).longValue();
    }
    if (literal instanceof Float) {
      return ((Float) literal).doubleValue();
    }
    if (literal instanceof byte[]) {
      return ((byte[]) literal).clone();
    }
    if (literal instanceof Long
        || literal instanceof Double
        || literal instanceof Boolean
        || literal instanceof String
        || literal instanceof BigDecimal) {
      return literal;
    }
    throw new IllegalArgumentException(
        "Predicate column "
            + column
            + " "
            + op.symbol
            + " has a literal of unsupported type "
            + literal.getClass().getName()
            + "; use Long, Double, Boolean, String, byte[] or BigDecimal");
  }

  static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      out.append(String.format("%02X", b & 0xFF));
    }
    return out.toString();
  }
}
