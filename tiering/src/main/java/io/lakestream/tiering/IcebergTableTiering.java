package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TablePath;
import io.lakestream.lake.ComposedLakeTierer;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeTierer;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringHook;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.time.Duration;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

/**
 * Tiers streaming tables, log and primary-key ones, into their Iceberg tables: the Iceberg lake
 * format's {@link LakeTierer}, a {@link ComposedLakeTierer} of
 *
 * <ol>
 *   <li>{@link IcebergTableCreator}: load the table (the streaming table's own catalog entry) and
 *       check that it can take the stream (a primary-key table needs format version 2);
 *   <li>{@link StartOffsets}: the offsets its current state contains ({@link
 *       TieredOffsets#tieredSnapshot}: the snapshot's ancestry, else the tag {@value
 *       TieredOffsets#TAG}) as the round's start, or the catalog's {@link TieredOffsetsStore}
 *       record when another engine's maintenance removed both; a table that was tiered and has
 *       neither fails the round rather than starting again from 0;
 *   <li>per partition and bucket, the log range {@code [tiered offset, high watermark)} ({@link
 *       io.lakestream.lake.TieringPlan});
 *   <li>{@link IcebergDataWriter}: a log table's rows as Parquet data files following the table's
 *       partition spec; a primary-key table's changes folded per key into data files and equality
 *       delete files;
 *   <li>{@link IcebergCommitter}: one append snapshot (log table) or row delta (primary-key table)
 *       whose summary records the new offsets (and the tag moved to it), on the condition that the
 *       table still holds the start offsets; then the offsets are recorded in the store and
 *       compaction and snapshot expiry run when due. If the condition fails, another tierer
 *       committed first: the round commits nothing, deletes its files and reports {@link
 *       TieringRound.Outcome#LOST_RACE}.
 * </ol>
 *
 * The committed summary is the state that counts: a round that fails anywhere before its commit
 * leaves the table as it was, and the next round (in this process or another) reads the same range
 * again. Files of a failed attempt are deleted by the round that wrote them, except after {@link
 * CommitStateUnknownException}, when they may be part of the table.
 *
 * <p>Thread safe; rounds of different tables may run concurrently. Two rounds of one table may too
 * (in different processes, say): at most one of them commits.
 */
public final class IcebergTableTiering implements LakeTierer {
  private final LakeTierer rounds;

  /**
   * Log rows one round reads at most, unless {@link #IcebergTableTiering(LakeCatalog, Connection,
   * TieringHook, Duration, long)} says otherwise.
   */
  public static final long DEFAULT_MAX_ROWS_PER_ROUND = 2_000_000;

  /**
   * Changelog rows a primary-key round folds at most, whatever the row limit: its fold holds each
   * changed key's rows as Iceberg records, several hundred bytes each, until the round writes them,
   * and a fold of millions made the server's collector pause for 100-300 ms while requests waited.
   */
  static final long PRIMARY_KEY_MAX_CHANGES_PER_ROUND = 250_000;

  /**
   * @param readTimeout how long a round may take to read its ranges before it fails
   * @param maxRowsPerRound log rows after which a round stops reading (at a batch boundary) and
   *     commits what it has; the next round goes on from there. It bounds a round's memory (a
   *     primary-key round holds the net change of every key it read) and lets a long catch-up
   *     commit as it goes
   */
  public IcebergTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound) {
    this(lake, connection, hook, readTimeout, maxRowsPerRound, DataFileWriter.DUCKDB);
  }

  /**
   * @param dataFileWriter how a log table's data files are written
   */
  public IcebergTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound,
      DataFileWriter dataFileWriter) {
    this(
        lake,
        connection,
        hook,
        readTimeout,
        maxRowsPerRound,
        dataFileWriter,
        TieredOffsetsStore.NONE);
  }

  /**
   * @param offsetsStore where every commit's offsets are recorded too, and where a round finds them
   *     when the table lost them ({@link StartOffsets})
   */
  public IcebergTableTiering(
      LakeCatalog lake,
      Connection connection,
      TieringHook hook,
      Duration readTimeout,
      long maxRowsPerRound,
      DataFileWriter dataFileWriter,
      TieredOffsetsStore offsetsStore) {
    requireNonNull(offsetsStore, "offsetsStore is null");
    if (maxRowsPerRound < 1) {
      throw new IllegalArgumentException("maxRowsPerRound must be positive: " + maxRowsPerRound);
    }
    this.rounds =
        new ComposedLakeTierer<>(
            requireNonNull(connection, "connection is null"),
            hook,
            new IcebergTableCreator(lake),
            (path, table) ->
                StartOffsets.resolve(path, table.start(), table.table().io(), offsetsStore, true),
            new IcebergDataWriter(readTimeout, maxRowsPerRound, dataFileWriter),
            new IcebergCommitter(offsetsStore));
  }

  public IcebergTableTiering(
      LakeCatalog lake, Connection connection, TieringHook hook, Duration readTimeout) {
    this(lake, connection, hook, readTimeout, DEFAULT_MAX_ROWS_PER_ROUND);
  }

  public IcebergTableTiering(LakeCatalog lake, Connection connection) {
    this(lake, connection, TieringHook.NONE, Duration.ofMinutes(5));
  }

  /**
   * Runs one round.
   *
   * @throws TieringException when the table is not a streaming table, cannot be tiered into
   *     Iceberg, or a range cannot be read in time
   * @throws CommitStateUnknownException when the commit's outcome is unknown; the next round finds
   *     out from the table's offsets
   * @throws RuntimeException from the catalog, the stream RPC or the file system; nothing was
   *     committed
   */
  @Override
  public TieringRound tierOnce(TablePath path) {
    return rounds.tierOnce(path);
  }
}
