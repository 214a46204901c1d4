package io.lakestream.lake.paimon;

import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTableValidator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;

/**
 * What tables tiered into Paimon ({@code lakestream.lake-format=paimon}) may be: a schema and
 * partition spec Paimon can hold ({@link PaimonTables#check}), which cannot change yet; and only
 * tiering commits their snapshots, since the catalog entry points at the Iceberg metadata Paimon
 * writes and an Iceberg writer's snapshot would be dropped at the next round.
 */
public final class PaimonTableValidator implements LakeTableValidator {
  @Override
  public String format() {
    return LakeFormat.PAIMON.value();
  }

  @Override
  public void checkTable(TableMetadata base, TableMetadata updated) {
    if (base != null && base.currentSchemaId() != updated.currentSchemaId()) {
      throw new IllegalArgumentException(
          "The schema of a table with " + LakeFormat.PROPERTY + "=paimon cannot change yet");
    }
    try {
      PaimonTables.check(updated.schema(), updated.spec().fields());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Invalid table for " + LakeFormat.PROPERTY + "=paimon: " + e.getMessage(), e);
    }
  }

  @Override
  public void checkSnapshots(TableMetadata base, TableMetadata updated) {
    String paimonTables = "/paimon/" + PaimonTables.DATABASE + ".db/";
    for (Snapshot snapshot : updated.snapshots()) {
      if (base.snapshot(snapshot.snapshotId()) == null
          && (snapshot.manifestListLocation() == null
              || !snapshot.manifestListLocation().contains(paimonTables))) {
        throw new IllegalArgumentException(
            "Table "
                + updated.location()
                + " tiers into Paimon ("
                + LakeFormat.PROPERTY
                + "=paimon): only tiering commits its snapshots");
      }
    }
  }
}
