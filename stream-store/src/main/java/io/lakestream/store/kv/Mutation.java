package io.lakestream.store.kv;

import static java.util.Objects.requireNonNull;

/**
 * One write to a primary-key table: an upsert (whole row or a partial update of some columns) or a
 * delete.
 *
 * <p>The row always has the current schema's arity. For a delete only the key columns are needed
 * (and, for the versioned merge engine, the version column); other values are ignored. For a
 * partial update, values outside {@code targetColumns} are ignored: those columns keep the key's
 * old values (null for a new key).
 *
 * <p>Arrays are not copied here; the tablet copies them before use, and a caller must not change
 * them while a call that uses them runs.
 *
 * @param kind what the write does
 * @param row the row, in current schema column order
 * @param targetColumns for a partial update the positions of the columns it writes (primary-key
 *     columns included); null to write every column
 */
public record Mutation(Kind kind, Object[] row, int[] targetColumns) {
  /** What a mutation does. */
  public enum Kind {
    UPSERT,
    DELETE
  }

  public Mutation {
    requireNonNull(kind, "kind is null");
    requireNonNull(row, "row is null");
    if (kind == Kind.DELETE && targetColumns != null) {
      throw new IllegalArgumentException(
          "A delete removes the whole row: it has no target columns");
    }
  }

  /** Inserts the row, or replaces (merges) the key's row. */
  public static Mutation upsert(Object[] row) {
    return new Mutation(Kind.UPSERT, row, null);
  }

  /** Writes only the given columns, which must include the primary key (positions in the row). */
  public static Mutation partialUpdate(Object[] row, int... targetColumns) {
    return new Mutation(Kind.UPSERT, row, requireNonNull(targetColumns, "targetColumns is null"));
  }

  /** Deletes the row of the key the row carries. */
  public static Mutation delete(Object[] row) {
    return new Mutation(Kind.DELETE, row, null);
  }

  public boolean isPartial() {
    return targetColumns != null;
  }

  /**
   * Whether the mutation writes a column. For a whole-row write every column; a delete writes none.
   */
  public boolean writes(int position) {
    if (kind == Kind.DELETE) {
      return false;
    }
    if (targetColumns == null) {
      return true;
    }
    for (int target : targetColumns) {
      if (target == position) {
        return true;
      }
    }
    return false;
  }

  /**
   * The row with this mutation's target columns taken from it and every other column from {@code
   * current} (null when {@code current} is null): what a last-row merge produces.
   */
  public Object[] overlay(Object[] current) {
    if (targetColumns == null) {
      return row.clone();
    }
    Object[] merged = current == null ? new Object[row.length] : current.clone();
    for (int position : targetColumns) {
      merged[position] = row[position];
    }
    return merged;
  }
}
