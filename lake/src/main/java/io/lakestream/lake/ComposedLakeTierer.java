package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link LakeTierer} composed of a format's pieces; every format's round is this one:
 *
 * <ol>
 *   <li>{@link LakeTableCreator#open}: open (and create, or verify) the lake table;
 *   <li>{@link CommittedOffsetsReader#read}: the offsets its committed state holds, where the round
 *       starts;
 *   <li>{@link TieringPlan#of}: each bucket's log range from there to its high watermark;
 *   <li>{@link LakeDataWriter#write}: the ranges' rows into new files; nothing to write is {@link
 *       TieringRound.Outcome#UP_TO_DATE};
 *   <li>the {@link TieringHook}, then {@link LakeCommitter#commit}: the files with the offsets they
 *       reach, if the table still holds the start offsets.
 * </ol>
 *
 * A round that fails before its commit changed nothing; the next reads the same ranges again.
 *
 * <p>Thread safe when its pieces are.
 *
 * @param <T> the format's handle of an opened lake table
 * @param <F> the files one round wrote
 */
public final class ComposedLakeTierer<T, F extends LakeDataWriter.WrittenFiles>
    implements LakeTierer {
  private final Connection connection;
  private final TieringHook hook;
  private final LakeTableCreator<T> creator;
  private final CommittedOffsetsReader<T> offsets;
  private final LakeDataWriter<T, F> writer;
  private final LakeCommitter<T, F> committer;

  public ComposedLakeTierer(
      Connection connection,
      TieringHook hook,
      LakeTableCreator<T> creator,
      CommittedOffsetsReader<T> offsets,
      LakeDataWriter<T, F> writer,
      LakeCommitter<T, F> committer) {
    this.connection = requireNonNull(connection, "connection is null");
    this.hook = requireNonNull(hook, "hook is null");
    this.creator = requireNonNull(creator, "creator is null");
    this.offsets = requireNonNull(offsets, "offsets is null");
    this.writer = requireNonNull(writer, "writer is null");
    this.committer = requireNonNull(committer, "committer is null");
  }

  /**
   * What a round prepared: its open table, where it started, the offsets its files reach and the
   * files, written and not committed; no files when the table is up to date.
   */
  public record Prepared<T, F>(
      TablePath path,
      T table,
      CommittedOffsetsReader.Start start,
      TieredOffsets to,
      Optional<F> files) {
    public Prepared {
      requireNonNull(path, "path is null");
      requireNonNull(table, "table is null");
      requireNonNull(start, "start is null");
      requireNonNull(to, "to is null");
      requireNonNull(files, "files is null");
    }
  }

  @Override
  public TieringRound tierOnce(TablePath path) {
    Prepared<T, F> prepared = prepare(path);
    if (prepared.files().isEmpty()) {
      return new TieringRound(
          path, TieringRound.Outcome.UP_TO_DATE, 0, 0, -1, prepared.start().from());
    }
    try {
      hook.beforeCommit(path, prepared.files().get().icebergDataFiles());
    } catch (RuntimeException | Error e) {
      committer.abort(prepared.table(), prepared.files().get());
      throw e;
    }
    return commit(prepared);
  }

  /** The steps of a round up to its commit: open, read the offsets, plan, write. */
  public Prepared<T, F> prepare(TablePath path) {
    T table = creator.open(path);
    CommittedOffsetsReader.Start start = offsets.read(path, table);
    TieringPlan plan = TieringPlan.of(path, connection.table(path), start.from());
    Map<TableBucket, Long> reached = new HashMap<>();
    Optional<F> files = writer.write(table, plan, reached);
    return new Prepared<>(
        path, table, start, files.isEmpty() ? start.from() : plan.reaching(reached), files);
  }

  /**
   * Commits what {@link #prepare} wrote ({@link LakeCommitter#commit}).
   *
   * @throws IllegalArgumentException when the round has no files
   */
  public TieringRound commit(Prepared<T, F> prepared) {
    F files =
        prepared
            .files()
            .orElseThrow(
                () ->
                    new IllegalArgumentException("Round of " + prepared.path() + " has no files"));
    return committer.commit(prepared.table(), prepared.start(), prepared.to(), files);
  }
}
