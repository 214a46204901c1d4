package io.lakestream.store.kv;

/**
 * How a primary-key table combines a key's stored row with a new write, chosen by the table
 * property {@code lakestream.merge-engine} ({@link MergeEngines}).
 *
 * <p>The tablet calls an engine with canonical, validated input: rows of the current schema's arity
 * with the right Java types, key columns non-null, target columns of a partial update including the
 * key. The engine returns the key's row after the write; the tablet derives the changelog by
 * comparing it with the row before ({@code +I}, {@code -U}/{@code +U}, {@code -D}, or nothing when
 * they are equal).
 *
 * <p>Engines are stateless and thread-safe, and never modify the arrays they are given.
 *
 * <table>
 *   <caption>Behaviour per engine</caption>
 *   <tr><th>engine</th><th>upsert</th><th>partial update</th><th>delete</th></tr>
 *   <tr><td>last-row</td><td>the new row replaces the old</td>
 *       <td>named columns replace, others keep their old values (null for a new key)</td>
 *       <td>removes the row</td></tr>
 *   <tr><td>first-row</td><td>kept for a new key, ignored for an existing one</td>
 *       <td>the same; for a new key the unnamed columns are null</td>
 *       <td>refused with {@link DeleteNotSupportedException}</td></tr>
 *   <tr><td>versioned</td><td>replaces the old row if its version is higher, else ignored</td>
 *       <td>must name the version column; applied like last-row if the version is higher</td>
 *       <td>removes the row if the delete's version is at least the stored one, else ignored;
 *       the delete must carry a version</td></tr>
 *   <tr><td>aggregation</td><td>each non-key column combines old and new values with its
 *       aggregate function</td><td>only the named columns are aggregated, others keep their values
 *       </td><td>removes the row</td></tr>
 * </table>
 */
public interface MergeEngine {
  /**
   * The key's row after an upsert (whole or partial).
   *
   * @param current the key's row before, or null if the key has none
   * @param mutation an upsert of the same key
   * @return the row after; a row equal to {@code current} means the write changes nothing
   * @throws InvalidMutationException if the engine refuses the write (a null version, a partial
   *     update without the version column, an aggregate that overflows its column)
   */
  Object[] upsert(Object[] current, Mutation mutation);

  /**
   * The key's row after a delete.
   *
   * @param current the key's row before, or null if the key has none
   * @param mutation a delete of the same key
   * @return null if the key has no row after the delete, else its row (usually {@code current}: the
   *     delete was ignored)
   * @throws InvalidMutationException if the engine refuses deletes ({@link
   *     DeleteNotSupportedException}) or this delete (a versioned delete without a version)
   */
  Object[] delete(Object[] current, Mutation mutation);
}
