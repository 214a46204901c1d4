package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Statistics of one top-level column of a batch: how many values are null and, for the column kinds
 * that have an order, a lower and an upper bound of the non-null values. Part of {@link
 * BatchStatistics}.
 *
 * <p>Bounds by {@link Kind}:
 *
 * <ul>
 *   <li>{@link Kind#LONG}: exact min and max as {@link Long}; integers, booleans (0 and 1), dates,
 *       times, timestamps and durations in their stored unit.
 *   <li>{@link Kind#DOUBLE}: exact min and max as {@link Double} in {@link Double#compare} order,
 *       so NaN is the greatest value and a column with any NaN has the upper bound NaN; {@code
 *       -0.0} is stored as {@code 0.0}.
 *   <li>{@link Kind#BINARY}: {@code byte[]} bounds in unsigned lexicographic order (UTF-8 byte
 *       order for strings). Values longer than {@link #MAX_BINARY_BOUND_LENGTH} bytes are
 *       truncated: the lower bound to a prefix, the upper bound to a prefix whose last byte is
 *       incremented, so they bound but may not equal the min and max.
 *   <li>{@link Kind#DECIMAL}: exact min and max as {@link BigDecimal}.
 *   <li>{@link Kind#NONE}: no bounds (nested, unsigned 64-bit, half-float and other types).
 * </ul>
 *
 * A column whose values are all null has no bounds whatever its kind. Immutable and thread-safe;
 * {@code byte[]} bounds are copied in and out. Internal: part of the batch format shared with the
 * server; not for applications.
 */
public final class ColumnStats {
  /** Longest binary bound kept; longer values are truncated as described above. */
  public static final int MAX_BINARY_BOUND_LENGTH = 64;

  /** What the bounds of a column are. Codes are part of the statistics wire format. */
  public enum Kind {
    /** No bounds, only the null count (code 0). */
    NONE(0),
    /** {@link Long} bounds (code 1). */
    LONG(1),
    /** {@link Double} bounds (code 2). */
    DOUBLE(2),
    /** {@code byte[]} bounds in unsigned order (code 3). */
    BINARY(3),
    /** {@link BigDecimal} bounds (code 4). */
    DECIMAL(4);

    private final int code;

    Kind(int code) {
      this.code = code;
    }

    int code() {
      return code;
    }

    static Kind fromCode(int code) {
      for (Kind kind : values()) {
        if (kind.code == code) {
          return kind;
        }
      }
      return null;
    }

    /**
     * The kind of statistics kept for a column of {@code type}.
     *
     * @param type the column's Arrow type
     * @return the kind, {@link #NONE} for a type without kept bounds
     */
    public static Kind of(ArrowType type) {
      switch (type.getTypeID()) {
        case Int:
          ArrowType.Int integer = (ArrowType.Int) type;
          return integer.getIsSigned() || integer.getBitWidth() < 64 ? LONG : NONE;
        case Bool:
        case Date:
        case Time:
        case Timestamp:
        case Duration:
          return LONG;
        case FloatingPoint:
          return ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.HALF
              ? NONE
              : DOUBLE;
        case Utf8:
        case LargeUtf8:
        case Binary:
        case LargeBinary:
        case FixedSizeBinary:
          return BINARY;
        case Decimal:
          return DECIMAL;
        default:
          return NONE;
      }
    }
  }

  private final Kind kind;
  private final long nullCount;
  private final Object lowerBound;
  private final Object upperBound;

  private ColumnStats(Kind kind, long nullCount, Object lowerBound, Object upperBound) {
    this.kind = requireNonNull(kind, "kind is null");
    if (nullCount < 0) {
      throw new IllegalArgumentException("nullCount is negative: " + nullCount);
    }
    this.nullCount = nullCount;
    this.lowerBound = lowerBound;
    this.upperBound = upperBound;
  }

  /**
   * Statistics of a column of kind {@link Kind#NONE}: only the null count.
   *
   * @param nullCount nulls in the column; not negative
   * @return the statistics
   * @throws IllegalArgumentException if the null count is negative
   */
  public static ColumnStats unordered(long nullCount) {
    return new ColumnStats(Kind.NONE, nullCount, null, null);
  }

  /**
   * Statistics of an ordered column without non-null values, hence without bounds.
   *
   * @param kind the column's kind
   * @param nullCount nulls in the column, which is every row
   * @return the statistics
   * @throws IllegalArgumentException if the null count is negative
   */
  public static ColumnStats allNull(Kind kind, long nullCount) {
    return new ColumnStats(kind, nullCount, null, null);
  }

  /**
   * Statistics of a {@link Kind#LONG} column with non-null values.
   *
   * @param nullCount nulls in the column; not negative
   * @param min the smallest non-null value
   * @param max the largest non-null value
   * @return the statistics
   * @throws IllegalArgumentException if the null count is negative or {@code min > max}
   */
  public static ColumnStats ofLongs(long nullCount, long min, long max) {
    checkOrder(Long.compare(min, max), min, max);
    return new ColumnStats(Kind.LONG, nullCount, min, max);
  }

  /**
   * Statistics of a {@link Kind#DOUBLE} column with non-null values; {@code -0.0} is stored as
   * {@code 0.0}.
   *
   * @param nullCount nulls in the column; not negative
   * @param min the smallest non-null value in {@link Double#compare} order
   * @param max the largest non-null value in {@link Double#compare} order (NaN if any is NaN)
   * @return the statistics
   * @throws IllegalArgumentException if the null count is negative or {@code min} is after {@code
   *     max}
   */
  public static ColumnStats ofDoubles(long nullCount, double min, double max) {
    double lower = normalizeZero(min);
    double upper = normalizeZero(max);
    checkOrder(Double.compare(lower, upper), min, max);
    return new ColumnStats(Kind.DOUBLE, nullCount, lower, upper);
  }

  /**
   * Statistics of a {@link Kind#BINARY} column with non-null values.
   *
   * @param nullCount nulls in the column; not negative
   * @param lowerBound at most the smallest value in unsigned order (copied)
   * @param upperBound at least the largest value in unsigned order (copied)
   * @return the statistics
   * @throws IllegalArgumentException if the null count is negative or the lower bound is after the
   *     upper
   */
  public static ColumnStats ofBinary(long nullCount, byte[] lowerBound, byte[] upperBound) {
    requireNonNull(lowerBound, "lowerBound is null");
    requireNonNull(upperBound, "upperBound is null");
    checkOrder(Arrays.compareUnsigned(lowerBound, upperBound), lowerBound, upperBound);
    return new ColumnStats(Kind.BINARY, nullCount, lowerBound.clone(), upperBound.clone());
  }

  /**
   * Statistics of a {@link Kind#DECIMAL} column with non-null values.
   *
   * @param nullCount nulls in the column; not negative
   * @param min the smallest non-null value
   * @param max the largest non-null value
   * @return the statistics
   * @throws IllegalArgumentException if the null count is negative or {@code min > max}
   */
  public static ColumnStats ofDecimals(long nullCount, BigDecimal min, BigDecimal max) {
    requireNonNull(min, "min is null");
    requireNonNull(max, "max is null");
    checkOrder(min.compareTo(max), min, max);
    return new ColumnStats(Kind.DECIMAL, nullCount, min, max);
  }

  /**
   * What the bounds are.
   *
   * @return the kind
   */
  public Kind kind() {
    return kind;
  }

  /**
   * How many values of the column are null.
   *
   * @return the null count
   */
  public long nullCount() {
    return nullCount;
  }

  /**
   * Whether there are bounds: the kind is ordered and at least one value is not null.
   *
   * @return {@code true} if {@link #lowerBound()} and {@link #upperBound()} are not null
   */
  public boolean hasBounds() {
    return lowerBound != null;
  }

  /**
   * The lower bound ({@link Long}, {@link Double}, {@code byte[]} copy or {@link BigDecimal} by
   * {@link #kind()}), or {@code null} without bounds.
   *
   * @return the lower bound, or null
   */
  public Object lowerBound() {
    return copyOf(lowerBound);
  }

  /**
   * The upper bound, typed like {@link #lowerBound()}, or {@code null} without bounds.
   *
   * @return the upper bound, or null
   */
  public Object upperBound() {
    return copyOf(upperBound);
  }

  /**
   * Whether these statistics (a writer's claim) are true of a column whose exact statistics are
   * {@code actual} (computed from its values): the same kind and null count, and, when the column
   * has non-null values, bounds that enclose the actual ones. Statistics that pass never make a
   * filter skip a batch holding a matching row.
   *
   * @param actual the statistics computed from the column's values
   * @return {@code true} if these statistics are true of that column
   */
  public boolean covers(ColumnStats actual) {
    requireNonNull(actual, "actual is null");
    if (kind != actual.kind || nullCount != actual.nullCount) {
      return false;
    }
    if (!actual.hasBounds()) {
      return true;
    }
    return hasBounds()
        && compare(lowerBound, actual.lowerBound) <= 0
        && compare(upperBound, actual.upperBound) >= 0;
  }

  /**
   * Whether a row of a batch with {@code rowCount} rows and these statistics might satisfy the
   * predicate; {@code false} only when none can.
   *
   * @throws IllegalArgumentException if the literal's type cannot be compared with this kind
   */
  boolean mightMatch(ColumnPredicate predicate, long rowCount) {
    switch (predicate.op()) {
      case IS_NULL:
        return nullCount > 0;
      case IS_NOT_NULL:
        return nullCount < rowCount;
      default:
        break;
    }
    if (kind == Kind.NONE) {
      return true;
    }
    Object literal = comparableLiteral(kind, predicate);
    if (!hasBounds()) {
      return false;
    }
    if (literal instanceof Double && ((Double) literal).isNaN()) {
      // Engines disagree on how NaN compares; never skip on it.
      return true;
    }
    int lower = compare(lowerBound, literal);
    int upper = compare(upperBound, literal);
    switch (predicate.op()) {
      case EQ:
        return lower <= 0 && upper >= 0;
      case LT:
        return lower < 0;
      case LT_EQ:
        return lower <= 0;
      case GT:
        return upper > 0;
      case GT_EQ:
        return upper >= 0;
      default:
        throw new IllegalStateException("Unexpected operator " + predicate.op());
    }
  }

  /**
   * The predicate's literal converted to the representation of the bounds of {@code kind}.
   *
   * @throws IllegalArgumentException if the literal cannot be compared with that kind
   */
  static Object comparableLiteral(Kind kind, ColumnPredicate predicate) {
    Object literal = predicate.literalView();
    switch (kind) {
      case LONG:
        if (literal instanceof Long) {
          return literal;
        }
        if (literal instanceof Boolean) {
          return ((Boolean) literal) ? 1L : 0L;
        }
        break;
      case DOUBLE:
        if (literal instanceof Double) {
          return normalizeZero((Double) literal);
        }
        if (literal instanceof Long && Math.abs((Long) literal) <= (1L << 53)) {
          return ((Long) literal).doubleValue();
        }
        break;
      case BINARY:
        if (literal instanceof byte[]) {
          return literal;
        }
        if (literal instanceof String) {
          return ColumnPredicate.utf8((String) literal);
        }
        break;
      case DECIMAL:
        if (literal instanceof BigDecimal) {
          return literal;
        }
        if (literal instanceof Long) {
          return BigDecimal.valueOf((Long) literal);
        }
        break;
      default:
        return literal;
    }
    throw new IllegalArgumentException(
        "Cannot compare column "
            + predicate.column()
            + " ("
            + kind
            + " statistics) with the "
            + literal.getClass().getSimpleName()
            + " literal of "
            + predicate);
  }

  private static int compare(Object bound, Object literal) {
    if (bound instanceof Long) {
      return Long.compare((Long) bound, (Long) literal);
    }
    if (bound instanceof Double) {
      return Double.compare((Double) bound, (Double) literal);
    }
    if (bound instanceof byte[]) {
      return Arrays.compareUnsigned((byte[]) bound, (byte[]) literal);
    }
    return ((BigDecimal) bound).compareTo((BigDecimal) literal);
  }

  void writeTo(WireWriter out) {
    out.writeByte(kind.code()).writeUnsignedVarLong(nullCount).writeByte(hasBounds() ? 1 : 0);
    if (!hasBounds()) {
      return;
    }
    switch (kind) {
      case LONG:
        out.writeVarLong((Long) lowerBound).writeVarLong((Long) upperBound);
        break;
      case DOUBLE:
        out.writeFixedLong(Double.doubleToRawLongBits((Double) lowerBound));
        out.writeFixedLong(Double.doubleToRawLongBits((Double) upperBound));
        break;
      case BINARY:
        out.writeBytes((byte[]) lowerBound).writeBytes((byte[]) upperBound);
        break;
      case DECIMAL:
        out.writeDecimal((BigDecimal) lowerBound).writeDecimal((BigDecimal) upperBound);
        break;
      default:
        throw new IllegalStateException("Bounds for kind " + kind);
    }
  }

  static ColumnStats readFrom(WireReader in, int column) {
    int code = in.readByte();
    Kind kind = Kind.fromCode(code);
    if (kind == null) {
      throw in.invalid("column " + column + " has unknown statistics kind " + code);
    }
    long nullCount = in.readNonNegative("column " + column + " null count");
    int flags = in.readByte();
    if (flags == 0) {
      return new ColumnStats(kind, nullCount, null, null);
    }
    if (flags != 1 || kind == Kind.NONE) {
      throw in.invalid("column " + column + " of kind " + kind + " has bounds flags " + flags);
    }
    try {
      switch (kind) {
        case LONG:
          return ofLongs(nullCount, in.readVarLong(), in.readVarLong());
        case DOUBLE:
          return ofDoubles(
              nullCount,
              Double.longBitsToDouble(in.readFixedLong()),
              Double.longBitsToDouble(in.readFixedLong()));
        case BINARY:
          return ofBinary(nullCount, in.readBytes("lower bound"), in.readBytes("upper bound"));
        default:
          return ofDecimals(
              nullCount, in.readDecimal("lower bound"), in.readDecimal("upper bound"));
      }
    } catch (IllegalArgumentException e) {
      throw in.invalid("column " + column + ": " + e.getMessage());
    }
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ColumnStats)) {
      return false;
    }
    ColumnStats that = (ColumnStats) other;
    return kind == that.kind
        && nullCount == that.nullCount
        && Objects.deepEquals(lowerBound, that.lowerBound)
        && Objects.deepEquals(upperBound, that.upperBound);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, nullCount, hash(lowerBound), hash(upperBound));
  }

  @Override
  public String toString() {
    if (!hasBounds()) {
      return kind + "{nulls=" + nullCount + "}";
    }
    return kind
        + "{nulls="
        + nullCount
        + ", lower="
        + show(lowerBound)
        + ", upper="
        + show(upperBound)
        + "}";
  }

  private static void checkOrder(int comparison, Object min, Object max) {
    if (comparison > 0) {
      throw new IllegalArgumentException(
          "Lower bound " + show(min) + " is greater than upper bound " + show(max));
    }
  }

  private static double normalizeZero(double value) {
    return value == 0.0 ? 0.0 : value;
  }

  private static Object copyOf(Object bound) {
    return bound instanceof byte[] ? ((byte[]) bound).clone() : bound;
  }

  private static int hash(Object bound) {
    return bound instanceof byte[] ? Arrays.hashCode((byte[]) bound) : Objects.hashCode(bound);
  }

  private static String show(Object bound) {
    return bound instanceof byte[] ? Arrays.toString((byte[]) bound) : String.valueOf(bound);
  }
}
