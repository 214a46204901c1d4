package io.lakestream.trino.write;

import static java.util.Objects.requireNonNull;

import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.RowBlock;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A page source whose pages carry the {@link RowKeyColumn} built from the key columns another page
 * source reads: each output column is either a read column or the row key.
 */
public final class RowKeyPageSource implements ConnectorPageSource {
  /** In {@code outputs}: the output column is the row key. */
  public static final int ROW_KEY = -1;

  private final ConnectorPageSource source;
  private final int[] outputs;
  private final int[] keyChannels;

  /**
   * @param source reads the columns the output columns and the key columns refer to
   * @param outputs per output column, its channel in the source's pages, or {@link #ROW_KEY}
   * @param keyChannels the source channels of the key columns, in the row key's field order
   */
  public RowKeyPageSource(ConnectorPageSource source, int[] outputs, int[] keyChannels) {
    this.source = requireNonNull(source, "source is null");
    this.outputs = outputs.clone();
    this.keyChannels = keyChannels.clone();
  }

  @Override
  public SourcePage getNextSourcePage() {
    SourcePage page = source.getNextSourcePage();
    if (page == null) {
      return null;
    }
    int count = page.getPositionCount();
    Block[] blocks = new Block[outputs.length];
    for (int output = 0; output < outputs.length; output++) {
      if (outputs[output] == ROW_KEY) {
        Block[] fields = new Block[keyChannels.length];
        for (int i = 0; i < fields.length; i++) {
          fields[i] = page.getBlock(keyChannels[i]);
        }
        blocks[output] = RowBlock.fromFieldBlocks(count, fields);
      } else {
        blocks[output] = page.getBlock(outputs[output]);
      }
    }
    return SourcePage.create(new Page(count, blocks));
  }

  @Override
  public long getCompletedBytes() {
    return source.getCompletedBytes();
  }

  @Override
  public OptionalLong getCompletedPositions() {
    return source.getCompletedPositions();
  }

  @Override
  public long getReadTimeNanos() {
    return source.getReadTimeNanos();
  }

  @Override
  public boolean isFinished() {
    return source.isFinished();
  }

  @Override
  public long getMemoryUsage() {
    return source.getMemoryUsage();
  }

  @Override
  public CompletableFuture<?> isBlocked() {
    return source.isBlocked();
  }

  @Override
  public Metrics getMetrics() {
    return source.getMetrics();
  }

  @Override
  public void close() throws IOException {
    source.close();
  }
}
