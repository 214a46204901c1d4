package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A conjunction of {@link ColumnPredicate}s that a reader sends with a fetch so that the server can
 * skip batches whose {@link BatchStatistics} rule out every row ({@link
 * BatchStatistics#mightMatch(BatchFilter)}). It only skips whole batches: rows of a returned batch
 * must still be filtered by the reader. The empty filter matches every batch.
 *
 * <p>Wire format (version 1): a version byte, the predicate count (unsigned varint), then per
 * predicate the column (unsigned varint), the operator code and, for comparisons, a literal tag and
 * value: 1 Long (zig-zag varint), 2 Double (8-byte little-endian bits), 3 String (length-prefixed
 * UTF-8), 4 byte[] (length-prefixed), 5 BigDecimal (zig-zag scale, length-prefixed unscaled), 6
 * Boolean (one byte). Codes never change meaning.
 *
 * <p>Immutable and thread-safe.
 *
 * @param predicates all must hold for a row to match
 */
public record BatchFilter(List<ColumnPredicate> predicates) {
  /** The filter without predicates, which every batch might match. */
  public static final BatchFilter MATCH_ALL = new BatchFilter(List.of());

  private static final int VERSION = 1;
  private static final int LONG_TAG = 1;
  private static final int DOUBLE_TAG = 2;
  private static final int STRING_TAG = 3;
  private static final int BYTES_TAG = 4;
  private static final int DECIMAL_TAG = 5;
  private static final int BOOLEAN_TAG = 6;

  /**
   * Copies the predicates into an immutable list.
   *
   * @throws NullPointerException if the list or a predicate is null
   */
  public BatchFilter {
    predicates = List.copyOf(requireNonNull(predicates, "predicates is null"));
  }

  /**
   * The conjunction of some predicates.
   *
   * @param predicates all must hold for a row to match; none gives a filter like {@link #MATCH_ALL}
   * @return the filter
   */
  public static BatchFilter of(ColumnPredicate... predicates) {
    return new BatchFilter(List.of(predicates));
  }

  /**
   * Checks that every predicate names a column of {@code schema} and that its literal can be
   * compared with that column's statistics, so that a server can reject a bad filter when the fetch
   * arrives rather than on the first batch.
   *
   * @param schema the Arrow schema of the batches the filter is applied to
   * @throws IllegalArgumentException naming the first predicate that does not fit
   */
  public void validate(Schema schema) {
    requireNonNull(schema, "schema is null");
    List<Field> fields = schema.getFields();
    for (ColumnPredicate predicate : predicates) {
      if (predicate.column() >= fields.size()) {
        throw new IllegalArgumentException(
            "Cannot check " + predicate + ": the schema has " + fields.size() + " columns");
      }
      if (predicate.op().takesLiteral()) {
        Field field = fields.get(predicate.column());
        try {
          ColumnStats.comparableLiteral(ColumnStats.Kind.of(field.getType()), predicate);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "Predicate "
                  + predicate
                  + " does not fit column "
                  + field.getName()
                  + " of type "
                  + field.getType()
                  + ": "
                  + e.getMessage(),
              e);
        }
      }
    }
  }

  /**
   * The wire form described in the class comment.
   *
   * @return a new array holding the encoding
   */
  public byte[] serialize() {
    WireWriter out = new WireWriter();
    out.writeByte(VERSION).writeUnsignedVarLong(predicates.size());
    for (ColumnPredicate predicate : predicates) {
      out.writeUnsignedVarLong(predicate.column()).writeByte(predicate.op().code());
      Object literal = predicate.literalView();
      if (literal == null) {
        continue;
      }
      if (literal instanceof Long) {
        out.writeByte(LONG_TAG).writeVarLong((Long) literal);
      } else if (literal instanceof Double) {
        out.writeByte(DOUBLE_TAG).writeFixedLong(Double.doubleToRawLongBits((Double) literal));
      } else if (literal instanceof String) {
        out.writeByte(STRING_TAG).writeBytes(((String) literal).getBytes(StandardCharsets.UTF_8));
      } else if (literal instanceof byte[]) {
        out.writeByte(BYTES_TAG).writeBytes((byte[]) literal);
      } else if (literal instanceof BigDecimal) {
        out.writeByte(DECIMAL_TAG).writeDecimal((BigDecimal) literal);
      } else {
        out.writeByte(BOOLEAN_TAG).writeByte(((Boolean) literal) ? 1 : 0);
      }
    }
    return out.toByteArray();
  }

  /**
   * Reads a filter written by {@link #serialize()} from the remaining bytes of {@code bytes}, which
   * must hold exactly one encoding. The buffer's position is not moved.
   *
   * @param bytes exactly one encoding, from its position (not moved)
   * @return the filter
   * @throws InvalidBatchFormatException if the bytes are not such an encoding
   */
  public static BatchFilter parse(ByteBuffer bytes) {
    requireNonNull(bytes, "bytes is null");
    WireReader in = new WireReader(bytes, "batch filter");
    int version = in.readByte();
    if (version != VERSION) {
      throw in.invalid("unknown version " + version);
    }
    int count = in.readCount("predicate count");
    List<ColumnPredicate> predicates = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long column = in.readUnsignedVarLong();
      if (column < 0 || column > Integer.MAX_VALUE) {
        throw in.invalid("predicate " + i + " names column " + column);
      }
      int code = in.readByte();
      ColumnPredicate.Op op = ColumnPredicate.Op.fromCode(code);
      if (op == null) {
        throw in.invalid("predicate " + i + " has unknown operator code " + code);
      }
      Object literal = op.takesLiteral() ? readLiteral(in, i) : null;
      predicates.add(new ColumnPredicate((int) column, op, literal));
    }
    in.requireEnd();
    return new BatchFilter(predicates);
  }

  private static Object readLiteral(WireReader in, int predicate) {
    int tag = in.readByte();
    switch (tag) {
      case LONG_TAG:
        return in.readVarLong();
      case DOUBLE_TAG:
        return Double.longBitsToDouble(in.readFixedLong());
      case STRING_TAG:
        return new String(in.readBytes("string literal"), StandardCharsets.UTF_8);
      case BYTES_TAG:
        return in.readBytes("binary literal");
      case DECIMAL_TAG:
        return in.readDecimal("decimal literal");
      case BOOLEAN_TAG:
        int value = in.readByte();
        if (value > 1) {
          throw in.invalid("predicate " + predicate + " has boolean literal " + value);
        }
        return value == 1;
      default:
        throw in.invalid("predicate " + predicate + " has unknown literal tag " + tag);
    }
  }
}
