package io.lakestream.catalog;

import org.apache.iceberg.TableMetadata;

/**
 * Checks the metadata a table commit would make current, before its metadata file is written. Every
 * path that changes or creates a table runs it: single-table commits, creates and the tables of a
 * multi-table transaction, so that a rule holds however a client commits.
 *
 * <p>Implementations are pure functions of their arguments and thread safe.
 */
@FunctionalInterface
public interface CommitValidator {
  /** Accepts every commit. */
  CommitValidator NONE = (base, updated) -> {};

  /**
   * @param base the table's current metadata, or null when the commit creates the table
   * @param updated the metadata the commit would make current
   * @throws org.apache.iceberg.exceptions.BadRequestException naming the value that is wrong; the
   *     commit then changes nothing
   */
  void validate(TableMetadata base, TableMetadata updated);
}
