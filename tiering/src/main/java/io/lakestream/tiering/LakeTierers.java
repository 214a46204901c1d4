package io.lakestream.tiering;

import io.lakestream.client.Connection;
import io.lakestream.lake.LakeTierer;
import io.lakestream.tiering.paimon.PaimonTableTiering;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * The tierers of the lake formats this module implements, keyed by {@link LakeFormat}: the registry
 * {@link TieringService} picks each table's tierer from, by the table's {@value
 * LakeFormat#PROPERTY}. Callers (the server, a tiering job) build it here and never name a format's
 * classes.
 */
public final class LakeTierers {
  private LakeTierers() {}

  /**
   * Iceberg's ({@link StreamTableTiering}) and Paimon's ({@link PaimonTableTiering}) tierers, each
   * reading the log through {@code connection} and committing into the tables of {@code lake}.
   *
   * @param dataFileWriter how Iceberg tiering writes log tables' data files
   * @param offsetsStore the catalog's own record of tiered offsets (both formats)
   */
  public static Map<LakeFormat, LakeTierer> standard(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound,
      DataFileWriter dataFileWriter,
      TieredOffsetsStore offsetsStore) {
    Map<LakeFormat, LakeTierer> tierers = new EnumMap<>(LakeFormat.class);
    tierers.put(
        LakeFormat.ICEBERG,
        new StreamTableTiering(
            lake, connection, hook, readTimeout, maxRowsPerRound, dataFileWriter, offsetsStore));
    tierers.put(
        LakeFormat.PAIMON,
        new PaimonTableTiering(lake, connection, hook, readTimeout, maxRowsPerRound, offsetsStore));
    return tierers;
  }
}
