package io.lakestream.tiering;

import io.lakestream.client.Connection;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.LakeTiererFactory;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The tierers of the lake formats on the class path, keyed by {@link LakeFormat}: the registry
 * {@link TieringService} picks each table's tierer from, by the table's {@value
 * LakeFormat#PROPERTY}. Callers (the server, a tiering job) build it here and never name a format's
 * classes.
 */
public final class LakeTierers {
  private LakeTierers() {}

  /**
   * Iceberg's tierer ({@link IcebergTableTiering}, this module's) and that of every other format
   * whose {@link LakeTiererFactory} is on the class path (Paimon's, in the {@code lake-paimon}
   * module), each reading the log through {@code connection} and committing into the tables of
   * {@code lake}.
   *
   * @param dataFileWriter how Iceberg tiering writes log tables' data files
   * @param offsetsStore the catalog's own record of tiered offsets (every format)
   * @throws IllegalStateException when two factories on the class path are for the same format, or
   *     one is for Iceberg (a deployment error)
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
        new IcebergTableTiering(
            lake, connection, hook, readTimeout, maxRowsPerRound, dataFileWriter, offsetsStore));
    LakeTiererFactory.Settings settings =
        new LakeTiererFactory.Settings(
            lake, connection, hook, readTimeout, maxRowsPerRound, offsetsStore);
    Map<LakeFormat, LakeTiererFactory> factories = new EnumMap<>(LakeFormat.class);
    for (LakeTiererFactory factory :
        ServiceLoader.load(LakeTiererFactory.class, LakeTiererFactory.class.getClassLoader())) {
      LakeTiererFactory before = factories.putIfAbsent(factory.format(), factory);
      if (before != null || factory.format() == LakeFormat.ICEBERG) {
        throw new IllegalStateException(
            "Two tierers for lake format '"
                + factory.format().value()
                + "': "
                + (before == null ? IcebergTableTiering.class : before.getClass()).getName()
                + " and "
                + factory.getClass().getName());
      }
      tierers.put(factory.format(), factory.create(settings));
    }
    return tierers;
  }
}
