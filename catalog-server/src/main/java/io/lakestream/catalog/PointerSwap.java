package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One compare-and-swap of a metadata pointer: if the entry's current metadata file is {@code
 * expectedLocation}, make it {@code newLocation}.
 */
public record PointerSwap(
    TableIdentifier identifier, EntityKind kind, String expectedLocation, String newLocation) {
  public PointerSwap {
    requireNonNull(identifier, "identifier is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(expectedLocation, "expectedLocation is null");
    requireNonNull(newLocation, "newLocation is null");
  }
}
