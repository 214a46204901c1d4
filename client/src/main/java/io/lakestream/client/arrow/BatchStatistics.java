package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Statistics of one batch, computed by the writer when it encodes the batch and stored next to it:
 * the row count and one {@link ColumnStats} per top-level column, in schema order. A server uses
 * them to skip batches that a {@link BatchFilter} cannot match, without reading the batch.
 *
 * <p>Wire format (version 1): a version byte, the row count (unsigned varint), the column count
 * (unsigned varint), then per column the kind code, the null count (unsigned varint), a bounds flag
 * byte and, if set, the two bounds: zig-zag varints for LONG, 8-byte little-endian IEEE 754 bits
 * for DOUBLE, length-prefixed bytes for BINARY, zig-zag scale plus length-prefixed two's-complement
 * unscaled value for DECIMAL. A 20-column batch takes a few hundred bytes.
 *
 * <p>Immutable and thread-safe. Internal: the batch format shared with the server; applications
 * pass a {@link BatchFilter} and never see statistics.
 *
 * @param rowCount rows in the batch
 * @param columns statistics per top-level column, in schema order
 */
public record BatchStatistics(long rowCount, List<ColumnStats> columns) {
  private static final int VERSION = 1;

  /**
   * Checks the statistics and copies the columns into an immutable list.
   *
   * @throws IllegalArgumentException if the row count is negative or a column has more nulls than
   *     rows
   */
  public BatchStatistics {
    if (rowCount < 0) {
      throw new IllegalArgumentException("rowCount is negative: " + rowCount);
    }
    columns = List.copyOf(requireNonNull(columns, "columns is null"));
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).nullCount() > rowCount) {
        throw new IllegalArgumentException(
            "Column "
                + i
                + " has "
                + columns.get(i).nullCount()
                + " nulls in a batch of "
                + rowCount
                + " rows");
      }
    }
  }

  /**
   * Computes the statistics of the rows of {@code root} in one pass per column. The root is only
   * read.
   *
   * @param root the batch's rows
   * @return the statistics
   * @throws IllegalArgumentException if a vector's value count differs from the root's row count
   */
  public static BatchStatistics compute(VectorSchemaRoot root) {
    requireNonNull(root, "root is null");
    List<ColumnStats> columns = new ArrayList<>(root.getFieldVectors().size());
    for (FieldVector vector : root.getFieldVectors()) {
      if (vector.getValueCount() != root.getRowCount()) {
        throw new IllegalArgumentException(
            "Column "
                + vector.getName()
                + " has "
                + vector.getValueCount()
                + " values but the root has "
                + root.getRowCount()
                + " rows");
      }
      columns.add(ColumnStatsCollector.collect(vector));
    }
    return new BatchStatistics(root.getRowCount(), columns);
  }

  /**
   * Statistics of one top-level column.
   *
   * @param index the column's position in the schema
   * @return its statistics
   * @throws IndexOutOfBoundsException if there is no such column
   */
  public ColumnStats column(int index) {
    return columns.get(index);
  }

  /**
   * Whether some row of the batch might satisfy the predicate. {@code false} means that no row can,
   * so the batch may be skipped; {@code true} promises nothing.
   *
   * @param predicate a predicate on a column of the batch
   * @return {@code false} if no row can satisfy it
   * @throws IllegalArgumentException if the predicate's column does not exist or its literal cannot
   *     be compared with the column (see {@link BatchFilter#validate})
   */
  public boolean mightMatch(ColumnPredicate predicate) {
    requireNonNull(predicate, "predicate is null");
    if (predicate.column() >= columns.size()) {
      throw new IllegalArgumentException(
          "Cannot check " + predicate + ": the batch has " + columns.size() + " columns");
    }
    return columns.get(predicate.column()).mightMatch(predicate, rowCount);
  }

  /**
   * Whether some row of the batch might satisfy every predicate of the filter. Each predicate is
   * checked on its own, so {@code true} does not mean that one row satisfies them all.
   *
   * @param filter the filter
   * @return {@code false} if some predicate can hold for no row
   * @throws IllegalArgumentException as {@link #mightMatch(ColumnPredicate)}
   */
  public boolean mightMatch(BatchFilter filter) {
    requireNonNull(filter, "filter is null");
    for (ColumnPredicate predicate : filter.predicates()) {
      if (!mightMatch(predicate)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The wire form described in the class comment.
   *
   * @return a new array holding the encoding
   */
  public byte[] serialize() {
    WireWriter out = new WireWriter();
    out.writeByte(VERSION).writeUnsignedVarLong(rowCount).writeUnsignedVarLong(columns.size());
    for (ColumnStats column : columns) {
      column.writeTo(out);
    }
    return out.toByteArray();
  }

  /**
   * Reads statistics written by {@link #serialize()} from the remaining bytes of {@code bytes},
   * which must hold exactly one encoding. The buffer's position is not moved.
   *
   * @param bytes exactly one encoding, from its position (not moved)
   * @return the statistics
   * @throws InvalidBatchFormatException if the bytes are not such an encoding
   */
  public static BatchStatistics parse(ByteBuffer bytes) {
    requireNonNull(bytes, "bytes is null");
    WireReader in = new WireReader(bytes, "batch statistics");
    int version = in.readByte();
    if (version != VERSION) {
      throw in.invalid("unknown version " + version);
    }
    long rowCount = in.readNonNegative("row count");
    int count = in.readCount("column count");
    List<ColumnStats> columns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ColumnStats column = ColumnStats.readFrom(in, i);
      if (column.nullCount() > rowCount) {
        throw in.invalid(
            "column " + i + " has " + column.nullCount() + " nulls in " + rowCount + " rows");
      }
      columns.add(column);
    }
    in.requireEnd();
    return new BatchStatistics(rowCount, columns);
  }
}
