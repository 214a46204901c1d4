package io.lakestream.lake;

import io.lakestream.client.TableBucket;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a round's log records into the lake format's data files, committing nothing: the second
 * step of a tiering round ({@link ComposedLakeTierer}).
 *
 * <p><b>Contract.</b> {@link #write} reads the plan's ranges ({@link TieringPlan#ranges()}) with
 * the stream client, in offset order per bucket, and writes their rows (a log table) or the net
 * change of each key they touch (a primary-key table, folded by {@link PrimaryKeyChanges}) into new
 * files that no snapshot references yet. It may stop reading at a batch boundary once it read its
 * row limit; it then puts, for every bucket it did not read to its range's end, the offset it read
 * to into {@code reached}, and the round commits those offsets ({@link TieringPlan#reaching}).
 *
 * <p><b>Failure.</b> When it throws, it has deleted the files it wrote (or logged those it could
 * not), and nothing was committed: the next round reads the same ranges again. Throws {@link
 * TieringException} when the ranges cannot be read within the read timeout, {@link
 * java.io.UncheckedIOException} when the files cannot be written.
 *
 * <p>Implementations are thread safe: rounds of different tables write concurrently.
 *
 * @param <T> the format's handle of an opened lake table ({@link LakeTableCreator})
 * @param <F> the files one round wrote
 */
@FunctionalInterface
public interface LakeDataWriter<T, F extends LakeDataWriter.WrittenFiles> {
  /**
   * Writes the plan's ranges into new files of {@code table}.
   *
   * @param reached receives the offset each bucket was read to when the round stopped short
   * @return empty when there is nothing to commit: the plan has no ranges and the format has no
   *     work left over from an earlier round
   */
  Optional<F> write(T table, TieringPlan plan, Map<TableBucket, Long> reached);

  /** The files of one round, written and not committed. */
  interface WrittenFiles {
    /** Log rows the files hold (for a primary-key table, changelog rows folded into them). */
    long rows();

    /** How many files the round wrote (data and delete files). */
    int count();

    /** The Iceberg data files among them, for {@link TieringHook}; empty for other formats. */
    default java.util.List<org.apache.iceberg.DataFile> icebergDataFiles() {
      return java.util.List.of();
    }
  }
}
