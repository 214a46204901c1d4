package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.ArrowValues;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Rows of one log batch returned by {@link LogScanner#poll}: an Arrow root with the scanned
 * columns, and the offset of its first row. The caller owns the root and must {@link #close()} the
 * batch. Uncompressed columns are not copied out of the fetch response they arrived in: the
 * response's memory (up to about 9 MiB, shared with the other batches of that fetch) stays in use
 * until its last batch is closed, so a consumer that keeps batches for long should copy what it
 * keeps (or transfer the vectors, which keeps the response too) and close the batch.
 *
 * <p>Values are read three ways: from the Arrow vectors of {@link #root()}; through a typed cursor,
 * {@link #row()} or {@link #row(List)}, which reads them from the same memory without allocating
 * per row; or as an {@code Object[]} per row with {@link #rows()}, the simplest and slowest.
 *
 * @param partition the partition the rows come from ({@link Partitioning#UNPARTITIONED} for a table
 *     without partitions)
 * @param bucket the bucket the rows come from
 * @param baseOffset the offset of the first row; row i has offset {@code baseOffset + i}
 * @param schemaId the schema the batch was written with
 * @param commitTimestamp when the server appended the batch to its log, in milliseconds since the
 *     epoch (the server's clock); the same for every row of the batch
 * @param root the batch's columns (a primary-key table's changelog ends with a change-type column)
 */
public record ScanBatch(
    String partition,
    int bucket,
    long baseOffset,
    int schemaId,
    long commitTimestamp,
    VectorSchemaRoot root)
    implements AutoCloseable {
  /**
   * Checks the batch's fields; the scanner makes batches, applications only read them.
   *
   * @throws NullPointerException for a null partition or root
   */
  public ScanBatch {
    requireNonNull(partition, "partition is null");
    requireNonNull(root, "root is null");
  }

  /**
   * The number of rows in the batch.
   *
   * @return the number of rows
   */
  public int rowCount() {
    return root.getRowCount();
  }

  /**
   * The change type of a row of a primary-key table's changelog; {@link ChangeType#INSERT} for
   * every row of a log table.
   *
   * @param row the row's index in the batch, from 0
   * @return the row's change type
   */
  public ChangeType changeType(int row) {
    FieldVector types = root.getVector(ArrowValues.CHANGE_TYPE_COLUMN);
    return types == null
        ? ChangeType.INSERT
        : ChangeType.fromCode((Byte) ArrowValues.get(types, row));
  }

  private int valueColumns() {
    List<FieldVector> vectors = root.getFieldVectors();
    return !vectors.isEmpty()
            && vectors.get(vectors.size() - 1).getName().equals(ArrowValues.CHANGE_TYPE_COLUMN)
        ? vectors.size() - 1
        : vectors.size();
  }

  /**
   * A typed view of the rows, positioned before the first: its columns are the batch's columns in
   * order (without a primary-key changelog's change-type column). Reading every value through it
   * allocates nothing per row; see {@link ScanRow}. Each call makes a new view with its own cursor.
   *
   * @return a new view, before the first row
   */
  public ScanRow row() {
    int columns = valueColumns();
    List<FieldVector> vectors = root.getFieldVectors().subList(0, columns);
    List<String> names = new ArrayList<>(columns);
    for (FieldVector vector : vectors) {
      names.add(vector.getName());
    }
    return new ScanRow(root, baseOffset, vectors, names);
  }

  /**
   * A typed view of the given columns, by name, positioned before the first row: column i of the
   * view is {@code columns.get(i)}, in every batch whatever schema it was written with. A column
   * the batch does not have (it was written before the column was added) is null in every row, as
   * {@link #rows(List)} reads it. See {@link ScanRow}.
   *
   * @param columns the columns to read, by name, in the order the view or rows have them
   * @return a new view, before the first row
   */
  public ScanRow row(List<String> columns) {
    requireNonNull(columns, "columns is null");
    List<FieldVector> vectors = new ArrayList<>(columns.size());
    for (String column : columns) {
      vectors.add(root.getVector(requireNonNull(column, "column name is null")));
    }
    return new ScanRow(root, baseOffset, vectors, columns);
  }

  /**
   * The rows as values (Arrow's Java objects: Long, Integer, Double, Text, ...), for convenience.
   *
   * @return one array of values per row, in row order
   */
  public List<Object[]> rows() {
    List<Object[]> rows = new ArrayList<>(root.getRowCount());
    List<FieldVector> vectors = root.getFieldVectors();
    int columns = valueColumns();
    for (int row = 0; row < root.getRowCount(); row++) {
      Object[] values = new Object[columns];
      for (int column = 0; column < values.length; column++) {
        Object value = vectors.get(column).getObject(row);
        values[column] =
            value instanceof org.apache.arrow.vector.util.Text text ? text.toString() : value;
      }
      rows.add(values);
    }
    return rows;
  }

  /**
   * The rows as values of the given columns, by name; a column the batch does not have (it was
   * written before the column was added) reads as null.
   *
   * @param columns the columns to read, by name, in the order the view or rows have them
   * @return one array of values per row, in row order
   */
  public List<Object[]> rows(List<String> columns) {
    List<Object[]> rows = new ArrayList<>(root.getRowCount());
    FieldVector[] vectors = new FieldVector[columns.size()];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = root.getVector(columns.get(i));
    }
    for (int row = 0; row < root.getRowCount(); row++) {
      Object[] values = new Object[vectors.length];
      for (int column = 0; column < values.length; column++) {
        Object value = vectors[column] == null ? null : vectors[column].getObject(row);
        values[column] =
            value instanceof org.apache.arrow.vector.util.Text text ? text.toString() : value;
      }
      rows.add(values);
    }
    return rows;
  }

  @Override
  public void close() {
    root.close();
  }
}
