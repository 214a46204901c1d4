package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.scan.LogRange;
import io.trino.plugin.iceberg.IcebergSplit;
import io.trino.spi.HostAddress;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;
import java.util.List;
import java.util.Optional;

/**
 * A lake split of a primary-key table's union read: the Iceberg connector's split, whose rows are
 * dropped when their key has a change in the read's log ranges ({@code changes}: the tail splits
 * return those keys' newest rows, or nothing for a deleted key).
 */
public record PrimaryKeyLakeSplit(IcebergSplit lake, List<LogRange> changes)
    implements ConnectorSplit {
  public PrimaryKeyLakeSplit {
    requireNonNull(lake, "lake is null");
    changes = List.copyOf(changes);
  }

  PrimaryKeyLakeSplit(ConnectorSplit lake, List<LogRange> changes) {
    this((IcebergSplit) lake, changes);
  }

  @Override
  public boolean isRemotelyAccessible() {
    return lake.isRemotelyAccessible();
  }

  @Override
  public List<HostAddress> getAddresses() {
    return lake.getAddresses();
  }

  @Override
  public Optional<String> getAffinityKey() {
    return lake.getAffinityKey();
  }

  @Override
  public SplitWeight getSplitWeight() {
    return lake.getSplitWeight();
  }

  @Override
  public long getRetainedSizeInBytes() {
    return lake.getRetainedSizeInBytes() + 64L * changes.size();
  }
}
