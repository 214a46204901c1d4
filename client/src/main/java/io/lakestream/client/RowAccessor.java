package io.lakestream.client;

/**
 * One row's values, read by a writer column by column straight into its batch: no {@code Object[]}
 * per row, no boxed numbers, and strings as their UTF-8 bytes. An engine that holds rows in its own
 * format (a Flink {@code RowData}, say) implements it over its row and hands it to {@link
 * AppendWriter#append(RowAccessor)}; the writer reads every column during that call and keeps no
 * reference to the accessor or to the arrays it is given, so one accessor may be reused for the
 * next row.
 *
 * <p>Columns are positions in the table's current schema. For each column the writer first asks
 * {@link #isNullAt}; for a non-null value it calls the one method that its Arrow type names:
 *
 * <ul>
 *   <li>{@link #getLong}: 64-bit integers, timestamps (microseconds since the epoch) and times
 *       (microseconds of the day);
 *   <li>{@link #getInt}: 32-bit integers and dates (days since the epoch);
 *   <li>{@link #getDouble}: doubles;
 *   <li>{@link #writeBytes}: strings (their UTF-8 bytes) and binary values;
 *   <li>{@link #getObject}: every other type, the value as {@link AppendWriter#append(Object...)}
 *       takes it (Float, Boolean, BigDecimal, ...).
 * </ul>
 *
 * A writer that must compute the row's bucket or partition from its values (a table with a bucket
 * key or partitions) reads every non-null value with {@link #getObject} instead, and appends them
 * as {@link AppendWriter#append(Object...)} would. An accessor whose value does not fit the method
 * asked (a string column of the engine where the table has an integer) throws {@link
 * IllegalArgumentException}; the writer then leaves the row out and stays usable. Accessors need
 * not be thread safe: a writer reads one only on the thread that calls {@code append}.
 */
public interface RowAccessor {
  /** Where a string's or a binary value's bytes go. */
  @FunctionalInterface
  interface ByteTarget {
    /**
     * Takes {@code length} bytes of {@code source} from {@code offset}, copying them.
     *
     * @param source the bytes; not kept after the call
     * @param offset the first byte to take
     * @param length how many bytes to take
     */
    void write(byte[] source, int offset, int length);
  }

  /**
   * The number of columns (the table's, for a row the writer takes).
   *
   * @return the column count
   */
  int columnCount();

  /**
   * Whether a column's value is null; asked for every column before any getter.
   *
   * @param column the column's position in the table's current schema
   * @return {@code true} for a null value
   */
  boolean isNullAt(int column);

  /**
   * A non-null value of a 64-bit integer, timestamp (microseconds since the epoch) or time
   * (microseconds of the day) column.
   *
   * @param column the column's position in the table's current schema
   * @return the value
   * @throws IllegalArgumentException if the engine's value is not a 64-bit integer
   */
  long getLong(int column);

  /**
   * A non-null value of a 32-bit integer or date (days since the epoch) column.
   *
   * @param column the column's position in the table's current schema
   * @return the value
   * @throws IllegalArgumentException if the engine's value is not a 32-bit integer
   */
  int getInt(int column);

  /**
   * A non-null value of a double column.
   *
   * @param column the column's position in the table's current schema
   * @return the value
   * @throws IllegalArgumentException if the engine's value is not a double
   */
  double getDouble(int column);

  /**
   * Writes a string's UTF-8 bytes, or a binary value's bytes, to {@code target}, in one or more
   * calls.
   *
   * @param column the position of a string or binary column in the table's current schema
   * @param target takes the bytes; valid only during this call
   * @throws IllegalArgumentException if the engine's value is not a string or binary value
   */
  void writeBytes(int column, ByteTarget target);

  /**
   * A non-null value of any column, as {@link AppendWriter#append(Object...)} takes it (a string as
   * a String, a date as an Integer of days, ...).
   *
   * @param column the column's position in the table's current schema
   * @return the value, not null
   */
  Object getObject(int column);
}
