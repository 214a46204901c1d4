package io.lakestream.tiering.flink;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The tiering job's scheduler as an unbounded source: its reader ({@link TableDiscoveryReader})
 * lists the catalog's streaming tables every discovery interval and emits a {@link TieringWork}
 * whenever a table's round is due ({@link TieringSchedule}). Run it with parallelism 1: every
 * reader would schedule every table.
 *
 * <p>It has no splits and no state: the truth of how far each table is tiered is the committed
 * offsets in its lake table, so a restored job only needs to list the catalog again.
 */
final class TableDiscoverySource
    implements Source<TieringWork, TableDiscoverySource.NoSplit, TableDiscoverySource.NoState> {
  private static final long serialVersionUID = 1L;

  private final TieringJobOptions options;

  TableDiscoverySource(TieringJobOptions options) {
    this.options = requireNonNull(options, "options is null");
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<TieringWork, NoSplit> createReader(SourceReaderContext context) {
    return new TableDiscoveryReader(options);
  }

  @Override
  public SplitEnumerator<NoSplit, NoState> createEnumerator(
      SplitEnumeratorContext<NoSplit> context) {
    return new NoSplits();
  }

  @Override
  public SplitEnumerator<NoSplit, NoState> restoreEnumerator(
      SplitEnumeratorContext<NoSplit> context, NoState checkpoint) {
    return new NoSplits();
  }

  @Override
  public SimpleVersionedSerializer<NoSplit> getSplitSerializer() {
    return new Nothing<>(NoSplit.INSTANCE);
  }

  @Override
  public SimpleVersionedSerializer<NoState> getEnumeratorCheckpointSerializer() {
    return new Nothing<>(NoState.INSTANCE);
  }

  /** The split type of a source that has none. */
  static final class NoSplit implements SourceSplit {
    static final NoSplit INSTANCE = new NoSplit();

    private NoSplit() {}

    @Override
    public String splitId() {
      return "none";
    }
  }

  /** The enumerator state of a source that has none. */
  static final class NoState {
    static final NoState INSTANCE = new NoState();

    private NoState() {}
  }

  /** Serializes the one value of a type that has one. */
  private static final class Nothing<T> implements SimpleVersionedSerializer<T> {
    private final T value;

    Nothing(T value) {
      this.value = value;
    }

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(T object) {
      return new byte[0];
    }

    @Override
    public T deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1 || serialized.length != 0) {
        throw new IOException(
            "Unknown serialized form of version " + version + ", " + serialized.length + " bytes");
      }
      return value;
    }
  }

  /** Assigns nothing: each reader schedules on its own. */
  private static final class NoSplits implements SplitEnumerator<NoSplit, NoState> {
    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {}

    @Override
    public void addSplitsBack(List<NoSplit> splits, int subtaskId) {}

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public NoState snapshotState(long checkpointId) {
      return NoState.INSTANCE;
    }

    @Override
    public void close() {}
  }
}
