package io.lakestream.lake;

import io.lakestream.client.TablePath;

/**
 * Creates or verifies the lake table of a streaming table and opens it for one tiering round: the
 * first step of every round ({@link ComposedLakeTierer}).
 *
 * <p><b>Contract.</b> {@link #open} returns a handle of the lake table as it is now, on which the
 * round's other steps ({@link CommittedOffsetsReader}, {@link LakeDataWriter}, {@link
 * LakeCommitter}) work. It creates the format's table when the format keeps one of its own and it
 * does not exist yet (Paimon's), and checks that the table can take the stream's rows (its kind,
 * format version, schema). It may repair what a process that died between a commit and its
 * aftermath left behind (Paimon's missing Iceberg metadata); it never commits rows.
 *
 * <p><b>Failure.</b> Throws {@link TieringException} naming the table and the reason when the table
 * cannot be tiered into this format; {@link org.apache.iceberg.exceptions.NoSuchTableException}
 * when the table is gone. Nothing was committed either way.
 *
 * <p>Implementations are thread safe: rounds of different tables open them concurrently.
 *
 * @param <T> the format's handle of an opened lake table
 */
@FunctionalInterface
public interface LakeTableCreator<T> {
  /** Opens, and creates when needed, the lake table of the streaming table at {@code path}. */
  T open(TablePath path);
}
