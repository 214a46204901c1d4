package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.util.UUID;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.BadRequestException;

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
   * A table's UUID is its identity: it is a UUID in canonical form, and once set it never changes
   * (clients assert it before they commit, and a refresh that finds another UUID fails).
   */
  CommitValidator TABLE_UUID =
      (base, updated) -> {
        String uuid = updated.uuid();
        if (uuid != null && !isCanonicalUuid(uuid)) {
          throw new BadRequestException("Invalid table UUID '%s': not a UUID", uuid);
        }
        if (base != null && base.uuid() != null && !base.uuid().equals(uuid)) {
          throw new BadRequestException(
              "Cannot change the UUID of a table from %s to %s", base.uuid(), uuid);
        }
      };

  private static boolean isCanonicalUuid(String text) {
    try {
      return UUID.fromString(text).toString().equalsIgnoreCase(text);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** This check, then {@code next}. */
  default CommitValidator andThen(CommitValidator next) {
    requireNonNull(next, "next is null");
    return (base, updated) -> {
      validate(base, updated);
      next.validate(base, updated);
    };
  }

  /**
   * @param base the table's current metadata, or null when the commit creates the table
   * @param updated the metadata the commit would make current
   * @throws org.apache.iceberg.exceptions.BadRequestException naming the value that is wrong; the
   *     commit then changes nothing
   */
  void validate(TableMetadata base, TableMetadata updated);
}
