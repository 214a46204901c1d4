package io.lakestream.lake.paimon;

import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.LakeTiererFactory;

/**
 * Paimon's tierer ({@link PaimonTableTiering}) for the tiering module's registry of tierers, which
 * finds this factory with {@link java.util.ServiceLoader}.
 */
public final class PaimonTiererFactory implements LakeTiererFactory {
  @Override
  public LakeFormat format() {
    return LakeFormat.PAIMON;
  }

  @Override
  public LakeTierer create(Settings settings) {
    return new PaimonTableTiering(
        settings.lake(),
        settings.connection(),
        settings.hook(),
        settings.readTimeout(),
        settings.maxRowsPerRound(),
        settings.offsetsStore());
  }
}
