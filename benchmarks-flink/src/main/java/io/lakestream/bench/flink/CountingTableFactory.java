package io.lakestream.bench.flink;

import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.factories.DynamicTableSinkFactory;

/**
 * The {@code counting} connector: a Flink SQL table that takes inserted rows into {@link
 * CountingSink}. A measured read is then the job a SQL user runs, {@code INSERT INTO ... SELECT ...
 * FROM} a Lakestream table, the source's rows handed straight to the sink's writer.
 */
public final class CountingTableFactory implements DynamicTableSinkFactory {
  static final String IDENTIFIER = "counting";

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of();
  }

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    return new CountingTable();
  }

  private static final class CountingTable implements DynamicTableSink {
    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
      return ChangelogMode.insertOnly();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
      return SinkV2Provider.of(new CountingSink());
    }

    @Override
    public DynamicTableSink copy() {
      return new CountingTable();
    }

    @Override
    public String asSummaryString() {
      return "counting";
    }
  }
}
