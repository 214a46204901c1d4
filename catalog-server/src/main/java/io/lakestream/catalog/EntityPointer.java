package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

/**
 * The catalog's record of one table or view: what it is and where its current metadata file is.
 *
 * @param kind table or view
 * @param metadataLocation the current metadata file
 * @param previousMetadataLocation the metadata file it replaced, or null for a new entry
 */
public record EntityPointer(
    EntityKind kind, String metadataLocation, String previousMetadataLocation) {
  public EntityPointer {
    requireNonNull(kind, "kind is null");
    requireNonNull(metadataLocation, "metadataLocation is null");
  }
}
