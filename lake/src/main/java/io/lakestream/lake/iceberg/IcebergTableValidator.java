package io.lakestream.lake.iceberg;

import io.lakestream.lake.LakeTableValidator;

/**
 * Iceberg, the default lake format: a streaming table's lake table is the catalog's own Iceberg
 * table, so every schema, spec and snapshot Iceberg allows is allowed.
 */
public final class IcebergTableValidator implements LakeTableValidator {
  @Override
  public String format() {
    return "iceberg";
  }
}
