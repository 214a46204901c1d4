package io.lakestream.lake;

import org.apache.iceberg.TableMetadata;

/**
 * What a lake format allows of the streaming tables that tier into it, checked by the catalog on
 * every commit to such a table before anything is written. Implementations are found with {@link
 * java.util.ServiceLoader} ({@link LakeTableValidators}), so they have a public no-argument
 * constructor.
 *
 * <p>Implementations are stateless and thread safe.
 */
public interface LakeTableValidator {
  /** The value of {@code lakestream.lake-format} this validator is for, such as {@code iceberg}. */
  String format();

  /**
   * Checks that a streaming table of this format may be created as, or changed into, {@code
   * updated}.
   *
   * @param base the table's current metadata, or null when the commit creates the table
   * @throws IllegalArgumentException with the message the client is to see (a 400)
   */
  default void checkTable(TableMetadata base, TableMetadata updated) {}

  /**
   * Checks the snapshots a commit to an existing streaming table of this format adds.
   *
   * @throws IllegalArgumentException with the message the client is to see (a 400)
   */
  default void checkSnapshots(TableMetadata base, TableMetadata updated) {}
}
