package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TablePath;
import io.lakestream.flink.ServerAddress;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A FLIP-27 source of a streaming table's log: one split per bucket (and partition), read with the
 * client's {@link io.lakestream.client.LogScanner} from the start positions on; bounded sources
 * stop at each bucket's high watermark when the enumerator starts. Primary-key tables' logs are
 * their changelogs, emitted with their row kinds ({@code +I -U +U -D}).
 *
 * <p>DataStream programs build one with {@link LakestreamSourceBuilder}; its rows are Flink's
 * internal {@link RowData} of the read columns ({@link #getProducedType()}).
 */
public final class LogSource
    implements Source<RowData, LogSplit, LogEnumeratorState>, ResultTypeQueryable<RowData> {
  private static final long serialVersionUID = 1L;

  private final ServerAddress server;
  // TablePath is not serializable.
  private final String[] namespace;
  private final String name;
  private final LogReadSpec spec;
  private final StartPositions start;
  private final boolean bounded;
  private final Duration discoveryInterval;
  // Null: every partition.
  private final PartitionSelection selection;

  LogSource(
      ServerAddress server,
      TablePath path,
      LogReadSpec spec,
      StartPositions start,
      boolean bounded,
      Duration discoveryInterval) {
    this(server, path, spec, start, bounded, discoveryInterval, null);
  }

  /**
   * @param selection the partitions to read (of those there are and those that appear later), or
   *     null for all
   */
  LogSource(
      ServerAddress server,
      TablePath path,
      LogReadSpec spec,
      StartPositions start,
      boolean bounded,
      Duration discoveryInterval,
      PartitionSelection selection) {
    this.server = requireNonNull(server, "server is null");
    requireNonNull(path, "path is null");
    this.namespace = path.namespace().toArray(String[]::new);
    this.name = path.name();
    this.spec = requireNonNull(spec, "spec is null");
    this.start = requireNonNull(start, "start is null");
    this.bounded = bounded;
    this.discoveryInterval = requireNonNull(discoveryInterval, "discoveryInterval is null");
    this.selection = selection;
  }

  private TablePath path() {
    return new TablePath(server.warehouse(), java.util.List.of(namespace), name);
  }

  /** The rows' type: the read columns, in order, as Flink's internal rows. */
  @Override
  public TypeInformation<RowData> getProducedType() {
    return InternalTypeInfo.of(
        RowType.of(
            spec.types().toArray(LogicalType[]::new), spec.columns().toArray(String[]::new)));
  }

  @Override
  public Boundedness getBoundedness() {
    return bounded ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<LogSplit, LogEnumeratorState> createEnumerator(
      SplitEnumeratorContext<LogSplit> context) {
    return new LogEnumerator(
        context, server, path(), start, bounded, discoveryInterval, selection, null);
  }

  @Override
  public SplitEnumerator<LogSplit, LogEnumeratorState> restoreEnumerator(
      SplitEnumeratorContext<LogSplit> context, LogEnumeratorState state) {
    return new LogEnumerator(
        context, server, path(), start, bounded, discoveryInterval, selection, state);
  }

  @Override
  public SimpleVersionedSerializer<LogSplit> getSplitSerializer() {
    return LogSplitSerializer.INSTANCE;
  }

  @Override
  public SimpleVersionedSerializer<LogEnumeratorState> getEnumeratorCheckpointSerializer() {
    return LogEnumeratorState.SERIALIZER;
  }

  @Override
  public SourceReader<RowData, LogSplit> createReader(SourceReaderContext context) {
    return new LogSourceReader(
        () -> new LogSplitReader(server, path(), spec), new Configuration(), context);
  }
}
