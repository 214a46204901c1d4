package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.time.Duration;

/**
 * Makes the {@link LakeTierer} of a lake format that lives in a module of its own (Paimon's, in
 * {@code lake-paimon}), so that the tiering module finds it on the class path with {@link
 * java.util.ServiceLoader} instead of depending on the format: a deployment without the module has
 * no tierer for the format, and its tables' rounds fail naming the format. Implementations are
 * registered in {@code META-INF/services/io.lakestream.lake.LakeTiererFactory} and have a public
 * no-argument constructor.
 *
 * <p>Implementations are stateless and thread safe.
 */
public interface LakeTiererFactory {
  /** The format whose tables this factory's tierers tier. */
  LakeFormat format();

  /** A tierer with these settings; it reads the log and commits as {@link LakeTierer} says. */
  LakeTierer create(Settings settings);

  /**
   * What every format's tierer is built from.
   *
   * @param lake the lake catalog whose tables the tierer commits into
   * @param connection the stream client the tierer reads the log through
   * @param hook called by a round before its commit ({@link TieringHook#NONE} outside tests)
   * @param readTimeout how long a round may take to read its ranges before it fails
   * @param maxRowsPerRound log rows after which a round stops reading and commits what it has
   * @param offsetsStore the catalog's own record of tiered offsets
   */
  record Settings(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound,
      TieredOffsetsStore offsetsStore) {
    public Settings {
      requireNonNull(lake, "lake is null");
      requireNonNull(connection, "connection is null");
      requireNonNull(hook, "hook is null");
      requireNonNull(readTimeout, "readTimeout is null");
      requireNonNull(offsetsStore, "offsetsStore is null");
    }
  }
}
