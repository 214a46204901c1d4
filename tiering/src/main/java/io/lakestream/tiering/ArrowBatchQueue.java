package io.lakestream.tiering;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * The Arrow stream DuckDB reads one file's batches from: blocks until the round hands over a batch
 * or ends the file.
 *
 * <p>One thread (the round) hands over batches and ends or fails the file; DuckDB's thread reads.
 */
final class ArrowBatchQueue extends ArrowReader {
  /** Batches waiting for DuckDB per open file. */
  private static final int QUEUE_BATCHES = 8;

  private static final VectorSchemaRoot END = new VectorSchemaRoot(List.of(), List.of(), 0);
  private static final VectorSchemaRoot FAILED = new VectorSchemaRoot(List.of(), List.of(), 0);

  private final org.apache.arrow.vector.types.pojo.Schema schema;
  private final BlockingQueue<VectorSchemaRoot> batches =
      new ArrayBlockingQueue<>(QUEUE_BATCHES + 1);
  private volatile boolean ended;

  ArrowBatchQueue(BufferAllocator allocator, org.apache.arrow.vector.types.pojo.Schema schema) {
    super(allocator);
    this.schema = schema;
  }

  /**
   * Hands over a batch, waiting up to {@code timeout} for room.
   *
   * @return false when there was no room in time
   */
  boolean offer(VectorSchemaRoot rows, long timeout, TimeUnit unit) throws InterruptedException {
    return batches.offer(rows, timeout, unit);
  }

  void end() throws IOException {
    if (ended) {
      return;
    }
    ended = true;
    try {
      batches.put(END);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted ending a data file", e);
    }
  }

  void fail() {
    ended = true;
    drain();
    batches.offer(FAILED);
  }

  /** Frees the batches nobody will read. */
  void drain() {
    List<VectorSchemaRoot> left = new ArrayList<>();
    batches.drainTo(left);
    for (VectorSchemaRoot root : left) {
      if (root == END || root == FAILED) {
        batches.offer(root);
      } else {
        root.close();
      }
    }
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    VectorSchemaRoot next;
    try {
      next = batches.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted waiting for rows", e);
    }
    if (next == END) {
      return false;
    }
    if (next == FAILED) {
      batches.offer(FAILED);
      throw new IOException("The tiering round failed");
    }
    try (next;
        ArrowRecordBatch batch = new VectorUnloader(next).getRecordBatch()) {
      new VectorLoader(getVectorSchemaRoot()).load(batch);
    }
    return true;
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    drain();
  }

  @Override
  protected org.apache.arrow.vector.types.pojo.Schema readSchema() {
    return schema;
  }
}
