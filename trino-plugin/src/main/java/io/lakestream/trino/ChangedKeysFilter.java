package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.type.Type;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The lake part of a primary-key table's union read: the Iceberg connector's page source, minus the
 * rows whose key the read's log ranges change ({@link ChangedKeys}). The pages it reads carry the
 * key columns after the requested ones when the query did not ask for them; those are cut off.
 */
final class ChangedKeysFilter implements ConnectorPageSource {
  private final ConnectorPageSource lake;
  private final int[] keyChannels;
  private final List<Type> keyTypes;
  private final Set<List<Object>> changed;
  private final int[] outputChannels;

  ChangedKeysFilter(
      ConnectorPageSource lake,
      int[] keyChannels,
      List<Type> keyTypes,
      Set<List<Object>> changed,
      int outputColumns) {
    this.lake = requireNonNull(lake, "lake is null");
    this.keyChannels = keyChannels.clone();
    this.keyTypes = List.copyOf(keyTypes);
    this.changed = requireNonNull(changed, "changed is null");
    this.outputChannels = new int[outputColumns];
    for (int i = 0; i < outputColumns; i++) {
      outputChannels[i] = i;
    }
  }

  @Override
  public SourcePage getNextSourcePage() {
    SourcePage page = lake.getNextSourcePage();
    if (page == null) {
      return null;
    }
    int[] kept = new int[page.getPositionCount()];
    int count = 0;
    Object[] key = new Object[keyChannels.length];
    for (int position = 0; position < page.getPositionCount(); position++) {
      for (int i = 0; i < keyChannels.length; i++) {
        key[i] =
            ChangedKeys.keyValue(
                TrinoValues.read(keyTypes.get(i), page.getBlock(keyChannels[i]), position));
      }
      if (!changed.contains(List.of(key))) {
        kept[count++] = position;
      }
    }
    if (count < page.getPositionCount()) {
      page.selectPositions(kept, 0, count);
    }
    if (page.getChannelCount() == outputChannels.length) {
      return page;
    }
    return SourcePage.create(page.getColumns(outputChannels));
  }

  @Override
  public long getCompletedBytes() {
    return lake.getCompletedBytes();
  }

  @Override
  public OptionalLong getCompletedPositions() {
    return lake.getCompletedPositions();
  }

  @Override
  public long getReadTimeNanos() {
    return lake.getReadTimeNanos();
  }

  @Override
  public boolean isFinished() {
    return lake.isFinished();
  }

  @Override
  public long getMemoryUsage() {
    return lake.getMemoryUsage();
  }

  @Override
  public CompletableFuture<?> isBlocked() {
    return lake.isBlocked();
  }

  @Override
  public Metrics getMetrics() {
    return lake.getMetrics();
  }

  @Override
  public void close() throws IOException {
    lake.close();
  }
}
