package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One compare-and-swap of a metadata pointer: if the entry's current metadata file is {@code
 * expectedLocation}, make it {@code newLocation}. With no expected location ({@link #create}) the
 * swap creates the entry, and requires that no table or view has its name.
 *
 * @param expectedLocation the entry's current metadata file, or null to create the entry
 */
public record PointerSwap(
    TableIdentifier identifier, EntityKind kind, String expectedLocation, String newLocation) {
  public PointerSwap {
    requireNonNull(identifier, "identifier is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(newLocation, "newLocation is null");
  }

  /** A swap that creates the entry, pointing at its first metadata file. */
  public static PointerSwap create(
      TableIdentifier identifier, EntityKind kind, String firstLocation) {
    return new PointerSwap(identifier, kind, null, firstLocation);
  }

  /** Whether this swap creates its entry rather than moving an existing pointer. */
  public boolean creates() {
    return expectedLocation == null;
  }
}
