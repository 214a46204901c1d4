package io.lakestream.trino.tail;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import io.lakestream.client.LogScanner;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.arrow.ArrowValues;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.trino.LakestreamErrorCode;
import io.lakestream.trino.StreamErrors;
import io.lakestream.trino.TrinoValues;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeUtils;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Reads a {@link LogTailSplit}: the split's log range through the stream client, each Arrow batch
 * turned into a Trino page column by column ({@link ArrowBlocks}). Rows the table handle's enforced
 * predicate excludes are dropped here, because the engine does not filter on what the Iceberg
 * connector reported as enforced for the lake part. A primary-key split folds its changes by key
 * first (the newest change wins, a delete removes the key) and returns the surviving rows once the
 * whole range is read.
 *
 * <p>Not thread safe (one driver reads it).
 */
public final class LogTailPageSource implements ConnectorPageSource {
  private static final Duration POLL = Duration.ofMillis(100);
  private static final int FOLDED_PAGE_ROWS = 8192;

  private final LogTailSplit split;
  private final LogScanner scanner;
  private final List<String> readNames;
  private final List<Type> readTypes;
  private final int[] outputSources; // per output column, its read column, or -1 for nulls
  private final List<Type> outputTypes;
  private final Map<Integer, Domain> filters; // read column -> domain its values must be in
  private final int[] keyColumns; // read columns of the primary key (primary-key splits)
  private final Map<List<Object>, Object[]> folded; // primary-key splits: key -> row
  private final Duration timeout;
  private long deadline; // reading fails when no record arrives before it
  private final Deque<Page> ready = new ArrayDeque<>();
  private long position;
  private long remaining;
  private long completedBytes;
  private long readTimeNanos;
  private boolean finished;

  /**
   * @param table the streaming table, from the query's connection
   * @param columns the columns the engine asked for
   * @param enforced the predicate the Iceberg connector enforces for the lake part
   * @param prune a predicate (implied by the query's) whose batches the server may skip; ignored
   *     for a primary-key split ({@link TailBatchFilter})
   * @param primaryKey the primary-key columns (empty for a log table)
   * @param limit at most this many rows are returned
   * @param timeout reading fails when no record of the range arrives for this long
   */
  public LogTailPageSource(
      io.lakestream.client.Table table,
      LogTailSplit split,
      List<IcebergColumnHandle> columns,
      TupleDomain<IcebergColumnHandle> enforced,
      TupleDomain<IcebergColumnHandle> prune,
      List<IcebergColumnHandle> primaryKey,
      OptionalLong limit,
      Duration timeout) {
    this.split = requireNonNull(split, "split is null");
    this.timeout = requireNonNull(timeout, "timeout is null");
    if (enforced.isNone()) {
      finished = true;
    }
    List<String> names = new ArrayList<>();
    List<Type> types = new ArrayList<>();
    outputSources = new int[columns.size()];
    outputTypes = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      IcebergColumnHandle column = columns.get(i);
      outputTypes.add(column.getType());
      outputSources[i] =
          TailColumns.isTableColumn(column)
              ? indexOf(names, types, column.getName(), column.getType())
              : -1;
    }
    filters = new LinkedHashMap<>();
    enforced
        .getDomains()
        .ifPresent(
            domains ->
                domains.forEach(
                    (column, domain) -> {
                      if (TailColumns.isTableColumn(column)) {
                        filters.put(
                            indexOf(names, types, column.getName(), column.getType()), domain);
                      }
                    }));
    keyColumns = new int[primaryKey.size()];
    for (int i = 0; i < keyColumns.length; i++) {
      keyColumns[i] =
          indexOf(names, types, primaryKey.get(i).getName(), primaryKey.get(i).getType());
    }
    readNames = List.copyOf(names);
    readTypes = types;
    folded = split.primaryKey() ? new LinkedHashMap<>() : null;
    position = split.from();
    remaining = limit.orElse(Long.MAX_VALUE);
    BatchFilter filter =
        split.primaryKey()
            ? BatchFilter.MATCH_ALL
            : TailBatchFilter.of(prune, table.arrowSchema(table.schemaId()));
    this.scanner = table.newScanner(readNames, filter);
    scanner.subscribe(split.partition(), split.bucket(), LogScanner.offset(split.from()));
    deadline = System.nanoTime() + timeout.toNanos();
    if (split.from() == split.to()) {
      position = split.to();
    }
  }

  private static int indexOf(List<String> names, List<Type> types, String name, Type type) {
    int index = names.indexOf(name);
    if (index < 0) {
      names.add(name);
      types.add(type);
      index = names.size() - 1;
    }
    return index;
  }

  @Override
  public SourcePage getNextSourcePage() {
    if (!ready.isEmpty()) {
      return SourcePage.create(ready.poll());
    }
    if (finished) {
      return null;
    }
    if (position >= split.to()) {
      if (folded != null) {
        emitFolded();
      }
      finished = true;
      return ready.isEmpty() ? null : SourcePage.create(ready.poll());
    }
    if (System.nanoTime() - deadline > 0) {
      throw new TrinoException(
          LakestreamErrorCode.LOG_READ_TIMEOUT,
          "Cannot read bucket "
              + split.bucket()
              + " of "
              + split.schema()
              + "."
              + split.table()
              + ": no record of offsets ["
              + position
              + ", "
              + split.to()
              + ") arrived within "
              + timeout);
    }
    long start = System.nanoTime();
    List<ScanBatch> batches;
    try {
      batches = scanner.poll(POLL);
    } catch (RuntimeException e) {
      throw StreamErrors.toTrino(
          "Cannot read the log of " + split.schema() + "." + split.table(), e);
    }
    long before = position;
    try {
      for (ScanBatch batch : batches) {
        if (batch.bucket() != split.bucket() || !batch.partition().equals(split.partition())) {
          continue;
        }
        long base = batch.baseOffset();
        int first = (int) Math.max(0, position - base);
        int end = (int) Math.min(batch.rowCount(), split.to() - base);
        if (first < end) {
          completedBytes +=
              batch.root().getFieldVectors().stream()
                  .mapToLong(vector -> vector.getBufferSize())
                  .sum();
          if (folded != null) {
            fold(batch, first, end);
          } else {
            add(page(batch.root(), first, end));
          }
        }
        position = Math.max(position, Math.min(split.to(), base + batch.rowCount()));
      }
      // Batches the server skipped by the filter arrive as nothing but the scanner's position.
      position =
          Math.max(
              position, Math.min(split.to(), scanner.position(split.partition(), split.bucket())));
    } finally {
      batches.forEach(ScanBatch::close);
      readTimeNanos += System.nanoTime() - start;
    }
    if (position > before) {
      // The timeout bounds a stall, not the whole range: a long range on a busy server may take
      // longer to read than the timeout while records keep arriving.
      deadline = System.nanoTime() + timeout.toNanos();
    }
    if (position >= split.to() && folded == null) {
      finished = ready.isEmpty();
    }
    return ready.isEmpty() ? null : SourcePage.create(ready.poll());
  }

  private Page page(VectorSchemaRoot root, int first, int end) {
    int count = end - first;
    Block[] blocks = new Block[readNames.size()];
    for (int column = 0; column < blocks.length; column++) {
      FieldVector vector = root.getVector(readNames.get(column));
      Type type = readTypes.get(column);
      blocks[column] =
          vector == null
              ? ArrowBlocks.nulls(type, count)
              : ArrowBlocks.block(type, vector, first, end);
    }
    return new Page(count, blocks);
  }

  private void fold(ScanBatch batch, int first, int end) {
    VectorSchemaRoot root = batch.root();
    FieldVector[] vectors = new FieldVector[readNames.size()];
    for (int column = 0; column < vectors.length; column++) {
      vectors[column] = root.getVector(readNames.get(column));
    }
    for (int row = first; row < end; row++) {
      ChangeType type = batch.changeType(row);
      if (type == ChangeType.UPDATE_BEFORE) {
        continue; // its update-after follows
      }
      Object[] values = new Object[vectors.length];
      for (int column = 0; column < vectors.length; column++) {
        values[column] = vectors[column] == null ? null : ArrowValues.get(vectors[column], row);
      }
      Object[] key = new Object[keyColumns.length];
      for (int i = 0; i < keyColumns.length; i++) {
        Object value = values[keyColumns[i]];
        key[i] = value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
      }
      List<Object> id = Arrays.asList(key);
      folded.remove(id); // keeps the order of last changes
      if (type != ChangeType.DELETE) {
        folded.put(id, values);
      }
    }
  }

  private void emitFolded() {
    Iterator<Object[]> rows = folded.values().iterator();
    while (rows.hasNext()) {
      BlockBuilder[] builders = new BlockBuilder[readNames.size()];
      for (int column = 0; column < builders.length; column++) {
        builders[column] = readTypes.get(column).createBlockBuilder(null, FOLDED_PAGE_ROWS);
      }
      int count = 0;
      while (rows.hasNext() && count < FOLDED_PAGE_ROWS) {
        Object[] values = rows.next();
        for (int column = 0; column < builders.length; column++) {
          TrinoValues.write(readTypes.get(column), builders[column], values[column]);
        }
        count++;
      }
      Block[] blocks = new Block[builders.length];
      for (int column = 0; column < blocks.length; column++) {
        blocks[column] = builders[column].build();
      }
      add(new Page(count, blocks));
    }
    folded.clear();
  }

  /** Filters a page of read columns, projects it to the output columns and queues it. */
  private void add(Page read) {
    if (remaining <= 0) {
      return;
    }
    Page page = read;
    if (!filters.isEmpty()) {
      int[] kept = new int[page.getPositionCount()];
      int count = 0;
      for (int position = 0; position < page.getPositionCount(); position++) {
        if (matches(page, position)) {
          kept[count++] = position;
        }
      }
      if (count == 0) {
        return;
      }
      if (count < page.getPositionCount()) {
        page = page.getPositions(kept, 0, count);
      }
    }
    int rows = (int) Math.min(page.getPositionCount(), remaining);
    Block[] blocks = new Block[outputSources.length];
    for (int output = 0; output < blocks.length; output++) {
      int source = outputSources[output];
      blocks[output] =
          source < 0
              ? ArrowBlocks.nulls(outputTypes.get(output), rows)
              : page.getBlock(source).getRegion(0, rows);
    }
    remaining -= rows;
    ready.add(new Page(rows, blocks));
  }

  private boolean matches(Page page, int position) {
    for (Map.Entry<Integer, Domain> filter : filters.entrySet()) {
      Object value =
          TypeUtils.readNativeValue(
              readTypes.get(filter.getKey()), page.getBlock(filter.getKey()), position);
      if (!filter.getValue().includesNullableValue(value)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean isFinished() {
    return finished && ready.isEmpty();
  }

  @Override
  public long getCompletedBytes() {
    return completedBytes;
  }

  @Override
  public long getReadTimeNanos() {
    return readTimeNanos;
  }

  @Override
  public long getMemoryUsage() {
    return 0;
  }

  @Override
  public void close() {
    scanner.close();
  }
}
