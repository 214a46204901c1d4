package io.lakestream.client;

import static java.util.Objects.requireNonNull;

/**
 * One field of a streaming table's partition spec, as the stream RPC describes it: the partition
 * field's name, the top-level column it is derived from, and the transform ({@code identity},
 * {@code year}, {@code month}, {@code day} or {@code hour}, as Iceberg spells them).
 *
 * @param name the partition field's name in the Iceberg spec (for example {@code ts_day})
 * @param sourceFieldId the Iceberg field id of the source column, which survives renames
 * @param sourceColumn the current name of the source column
 * @param transform the Iceberg transform name
 */
public record PartitionField(
    String name, int sourceFieldId, String sourceColumn, String transform) {
  /**
   * Checks the field.
   *
   * @throws NullPointerException if the name, source column or transform is null
   */
  public PartitionField {
    requireNonNull(name, "name is null");
    requireNonNull(sourceColumn, "sourceColumn is null");
    requireNonNull(transform, "transform is null");
  }
}
