package io.lakestream.store.log;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.batch.LogBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;

/**
 * The log of one bucket: an ordered list of {@link LogSegment}s in one directory, the last of which
 * takes appends.
 *
 * <p><b>Offsets.</b> Every record has an offset; a batch of n records takes n consecutive offsets.
 * The <em>log end offset</em> is the offset the next record will take. The <em>high watermark</em>
 * is the end of the durable prefix: readers see only records below it, so a reader never sees a
 * record that a crash could take back.
 *
 * <p><b>Durability.</b> With {@link FlushMode#FSYNC}, an append completes its {@code durable}
 * future after a force of the segment that covers it; one force covers every append that came
 * before it (group commit), so concurrent writers share the cost. With {@link FlushMode#OS} it
 * completes right after the write.
 *
 * <p><b>Idempotence.</b> A batch that carries a writer id and a sequence the writer used for one of
 * its last {@value #DEDUPLICATION_WINDOW} batches is a retry: it is not written again and the
 * original offsets are returned, so a writer may keep that many batches in flight per bucket and
 * still retry all of them after a lost connection or a crash. A sequence that skips ahead is
 * refused, so a lost batch is never silently papered over. A writer is forgotten once its last
 * batch is older than the log's retention (as Kafka expires idle producer ids), so the state of
 * short-lived writers does not pile up; a writer that comes back after that starts afresh.
 *
 * <p><b>Recovery.</b> Opening a tablet scans every segment, checks CRCs, truncates a torn tail and
 * rebuilds writer state; every batch acknowledged before a crash is still there.
 *
 * <p><b>Threads.</b> Appends are serialised by the tablet's lock; reads run concurrently with
 * appends and with each other.
 */
public final class LogTablet implements AutoCloseable {
  private final Path directory;
  private static final String EMPTY_APPENDS_FILE = "empty-appends.bin";
  private static final int EMPTY_APPEND_BYTES = 8 + 4 + 8;
  private FileChannel emptyAppends;
  private final LogConfig config;
  private final Clock clock;
  private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();

  /** Each writer's latest batches, the writer that wrote longest ago first. */
  private final LinkedHashMap<Long, java.util.ArrayDeque<WriterState>> writers =
      new LinkedHashMap<>();

  /** How many of a writer's latest batches are remembered for deduplicating retries. */
  static final int DEDUPLICATION_WINDOW = 5;

  private final Object appendLock = new Object();
  private final Object flushLock = new Object();
  private final List<Pending> pending = new ArrayList<>();
  private volatile long logEndOffset;
  private volatile long highWatermark;
  private volatile long logStartOffset;
  // Since the tablet opened, for metrics; written under the append lock, read by scrapes.
  private volatile long appendedRecords;
  private volatile long appendedBytes;
  private boolean closed;
  private final Object flushSignal = new Object();
  private boolean flushRequested;
  private Thread flusher;

  private record WriterState(int sequence, long baseOffset, long lastOffset, long writtenMillis) {}

  private record Pending(long endOffset, CompletableFuture<Void> future) {}

  private final List<Pending> readers = new ArrayList<>();

  private LogTablet(Path directory, LogConfig config, Clock clock) {
    this.directory = requireNonNull(directory, "directory is null");
    this.config = requireNonNull(config, "config is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** Opens (recovering) or creates the tablet in a directory. */
  public static LogTablet open(Path directory, LogConfig config, Clock clock) throws IOException {
    Files.createDirectories(directory);
    LogTablet tablet = new LogTablet(directory, config, clock);
    tablet.load();
    if (config.flushMode() == FlushMode.FSYNC) {
      tablet.flusher =
          Thread.ofVirtual()
              .name("lakestream-flusher-" + directory.getFileName())
              .start(tablet::flushLoop);
    }
    return tablet;
  }

  private void load() throws IOException {
    List<Path> files;
    try (Stream<Path> listing = Files.list(directory)) {
      files =
          listing.filter(path -> path.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    for (Path file : files) {
      LogSegment segment =
          LogSegment.open(file, config.indexIntervalBytes(), true, this::rememberWriter);
      if (!segments.isEmpty()
          && segment.baseOffset() != segments.lastEntry().getValue().nextOffset()) {
        // A segment that does not continue the log can only follow a torn tail: drop it.
        segment.delete();
        continue;
      }
      segments.put(segment.baseOffset(), segment);
    }
    if (segments.isEmpty()) {
      segments.put(
          0L, LogSegment.create(directory, 0, config.indexIntervalBytes(), clock.millis()));
    }
    logStartOffset = segments.firstKey();
    logEndOffset = segments.lastEntry().getValue().nextOffset();
    highWatermark = logEndOffset;
    loadEmptyAppends();
  }

  /**
   * Restores the writer sequences of requests that appended nothing ({@link #appendNothing}), which
   * the log's batches do not record: each entry newer than the writer's last batch, and not past
   * the recovered log end (an entry past it was never acknowledged).
   */
  private void loadEmptyAppends() throws IOException {
    Path file = directory.resolve(EMPTY_APPENDS_FILE);
    if (!Files.exists(file)) {
      return;
    }
    ByteBuffer entries = ByteBuffer.wrap(Files.readAllBytes(file));
    while (entries.remaining() >= EMPTY_APPEND_BYTES) {
      long writerId = entries.getLong();
      int sequence = entries.getInt();
      long offset = entries.getLong();
      java.util.ArrayDeque<WriterState> recent = writers.get(writerId);
      WriterState last = recent == null ? null : recent.peekLast();
      if (offset <= logEndOffset && (last == null || sequence > last.sequence())) {
        rememberWriter(writerId, sequence, offset, offset - 1, clock.millis());
      }
    }
  }

  private void rememberWriter(LogBatch batch) {
    rememberWriter(
        batch.writerId(),
        batch.writerSequence(),
        batch.baseOffset(),
        batch.lastOffset(),
        batch.commitTimestamp());
  }

  private void rememberWriter(
      long writerId, int sequence, long baseOffset, long lastOffset, long writtenMillis) {
    if (writerId == LogBatch.NO_WRITER) {
      return;
    }
    // Taken out and put back, so that the map stays ordered by each writer's last batch.
    java.util.ArrayDeque<WriterState> recent = writers.remove(writerId);
    if (recent == null) {
      recent = new java.util.ArrayDeque<>();
    }
    recent.addLast(new WriterState(sequence, baseOffset, lastOffset, writtenMillis));
    if (recent.size() > DEDUPLICATION_WINDOW) {
      recent.removeFirst();
    }
    writers.put(writerId, recent);
    forgetIdleWriters();
  }

  /** Forgets the writers whose last batch is older than the retention. */
  private void forgetIdleWriters() {
    long oldest = clock.millis() - config.retention().toMillis();
    Iterator<java.util.ArrayDeque<WriterState>> eldest = writers.values().iterator();
    while (eldest.hasNext() && eldest.next().peekLast().writtenMillis() < oldest) {
      eldest.remove();
    }
  }

  /** How many writers the tablet remembers, for tests. */
  int rememberedWriters() {
    synchronized (appendLock) {
      return writers.size();
    }
  }

  /**
   * The outcome of a writer's earlier batch with this sequence, marked duplicate, or null when the
   * sequence is the writer's next one. The caller holds the append lock.
   *
   * @throws InvalidBatchException for a sequence that skips ahead or is too old to deduplicate
   */
  private AppendResult earlierAppend(long writerId, int sequence) {
    if (writerId == LogBatch.NO_WRITER) {
      return null;
    }
    java.util.ArrayDeque<WriterState> recent = writers.get(writerId);
    WriterState state = recent == null ? null : recent.peekLast();
    if (state != null && sequence <= state.sequence()) {
      for (WriterState earlier : recent) {
        if (earlier.sequence() == sequence) {
          return new AppendResult(
              earlier.baseOffset(),
              earlier.lastOffset(),
              true,
              whenDurable(earlier.lastOffset() + 1));
        }
      }
      throw InvalidBatchException.duplicateTooOld(
          "Writer "
              + writerId
              + " sent sequence "
              + sequence
              + " after "
              + state.sequence()
              + ": older than the last "
              + DEDUPLICATION_WINDOW
              + " batches, too old to deduplicate");
    }
    if (state != null && sequence != state.sequence() + 1) {
      throw InvalidBatchException.outOfOrder(
          "Writer " + writerId + " skipped from sequence " + state.sequence() + " to " + sequence);
    }
    return null;
  }

  /**
   * For a batch derived from a writer's request rather than appended as sent (a primary-key table's
   * changelog): the outcome of the writer's earlier request with this sequence, or null when it is
   * the writer's next one. Callers serialise this with their append.
   *
   * @throws InvalidBatchException for a sequence that skips ahead or is too old to deduplicate
   */
  public AppendResult earlierAppendOf(long writerId, int sequence) {
    synchronized (appendLock) {
      return earlierAppend(writerId, sequence);
    }
  }

  /**
   * Records a writer's request that appended nothing (its changelog was empty), so a retry of it is
   * recognised and the writer's next sequence is accepted. Kept in memory only: after a restart the
   * writer's next sequence is accepted as after any gap-free history.
   *
   * @return an outcome at the log end, with nothing in it
   */
  public AppendResult appendNothing(long writerId, int sequence) throws IOException {
    synchronized (appendLock) {
      if (closed) {
        throw new IllegalStateException("Tablet is closed: " + directory);
      }
      AppendResult earlier = earlierAppend(writerId, sequence);
      if (earlier != null) {
        return earlier;
      }
      if (writerId != LogBatch.NO_WRITER) {
        // Rare (every row of the request was a no-op), so it is simply forced on its own.
        if (emptyAppends == null) {
          emptyAppends =
              FileChannel.open(
                  directory.resolve(EMPTY_APPENDS_FILE),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE,
                  StandardOpenOption.APPEND);
        }
        ByteBuffer entry =
            ByteBuffer.allocate(EMPTY_APPEND_BYTES)
                .putLong(writerId)
                .putInt(sequence)
                .putLong(logEndOffset)
                .flip();
        while (entry.hasRemaining()) {
          emptyAppends.write(entry);
        }
        emptyAppends.force(false);
      }
      rememberWriter(writerId, sequence, logEndOffset, logEndOffset - 1, clock.millis());
      return new AppendResult(logEndOffset, logEndOffset - 1, false, whenDurable(logEndOffset));
    }
  }

  /**
   * Appends a batch.
   *
   * @throws InvalidBatchException if the batch is corrupt, too large or out of sequence; nothing
   *     was written
   */
  public AppendResult append(LogBatch batch) throws IOException {
    if (batch.sizeInBytes() > config.maxBatchBytes()) {
      throw new InvalidBatchException(
          "Batch of "
              + batch.sizeInBytes()
              + " bytes exceeds the limit of "
              + config.maxBatchBytes());
    }
    if (!batch.isValid()) {
      throw new InvalidBatchException("Batch failed its CRC check or has an unknown format");
    }
    CompletableFuture<Void> durable = new CompletableFuture<>();
    long baseOffset;
    synchronized (appendLock) {
      if (closed) {
        throw new IllegalStateException("Tablet is closed: " + directory);
      }
      AppendResult earlier = earlierAppend(batch.writerId(), batch.writerSequence());
      if (earlier != null) {
        return earlier;
      }
      baseOffset = logEndOffset;
      batch.assign(baseOffset, clock.millis());
      LogSegment active = maybeRoll(batch.sizeInBytes());
      active.append(batch);
      logEndOffset = batch.nextOffset();
      appendedRecords += batch.recordCount();
      appendedBytes += batch.sizeInBytes();
      rememberWriter(batch);
      if (config.flushMode() == FlushMode.OS) {
        highWatermark = logEndOffset;
        durable.complete(null);
        wakeReaders();
      } else {
        synchronized (pending) {
          pending.add(new Pending(logEndOffset, durable));
        }
      }
    }
    if (config.flushMode() == FlushMode.FSYNC) {
      synchronized (flushSignal) {
        flushRequested = true;
        flushSignal.notifyAll();
      }
    }
    return new AppendResult(baseOffset, batch.lastOffset(), false, durable);
  }

  private CompletableFuture<Void> whenDurable(long endOffset) {
    if (highWatermark >= endOffset) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> future = new CompletableFuture<>();
    synchronized (pending) {
      pending.add(new Pending(endOffset, future));
    }
    return future;
  }

  private LogSegment maybeRoll(int incomingBytes) throws IOException {
    LogSegment active = segments.lastEntry().getValue();
    boolean full =
        active.sizeInBytes() > 0 && active.sizeInBytes() + incomingBytes > config.segmentBytes();
    boolean old =
        active.sizeInBytes() > 0
            && clock.millis() - active.createdMillis() > config.segmentAge().toMillis();
    if (!full && !old) {
      return active;
    }
    active.flush();
    LogSegment next =
        LogSegment.create(directory, logEndOffset, config.indexIntervalBytes(), clock.millis());
    segments.put(next.baseOffset(), next);
    return next;
  }

  /**
   * Runs the forces of {@link FlushMode#FSYNC}: appends only write and request a flush, so a writer
   * can send its next batch while the previous one is forced, and every append that arrives during
   * a force is covered by the next one.
   */
  private void flushLoop() {
    while (true) {
      synchronized (flushSignal) {
        while (!flushRequested && !isClosed()) {
          try {
            flushSignal.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (!flushRequested && isClosed()) {
          return;
        }
        flushRequested = false;
      }
      try {
        flushPending();
      } catch (IOException e) {
        failPending(e);
      }
    }
  }

  boolean isClosed() {
    synchronized (appendLock) {
      return closed;
    }
  }

  private void failPending(IOException error) {
    List<Pending> failed;
    synchronized (pending) {
      failed = new ArrayList<>(pending);
      pending.clear();
    }
    failed.forEach(entry -> entry.future().completeExceptionally(error));
  }

  /**
   * Forces the log and completes every pending append it covers. Callers that arrive while a force
   * runs wait for it and then usually find their batch already covered: that is the group commit.
   */
  private void flushPending() throws IOException {
    synchronized (flushLock) {
      long target = logEndOffset;
      if (highWatermark < target) {
        segments.lastEntry().getValue().flush();
        highWatermark = Math.max(highWatermark, target);
      }
      List<Pending> done = new ArrayList<>();
      synchronized (pending) {
        pending.removeIf(
            entry -> {
              if (entry.endOffset() <= highWatermark) {
                done.add(entry);
                return true;
              }
              return false;
            });
      }
      done.forEach(entry -> entry.future().complete(null));
    }
    wakeReaders();
  }

  /**
   * Completes when the high watermark passes {@code offset}, that is when a read at {@code offset}
   * would return data; at once if it already has. Long-polling fetches wait on this.
   */
  public CompletableFuture<Void> awaitDataAfter(long offset) {
    CompletableFuture<Void> future = new CompletableFuture<>();
    synchronized (readers) {
      if (highWatermark > offset) {
        future.complete(null);
      } else {
        readers.add(new Pending(offset + 1, future));
      }
    }
    return future;
  }

  private void wakeReaders() {
    List<Pending> ready = new ArrayList<>();
    synchronized (readers) {
      long watermark = highWatermark;
      readers.removeIf(
          entry -> {
            if (entry.endOffset() <= watermark || entry.future().isDone()) {
              ready.add(entry);
              return true;
            }
            return false;
          });
    }
    ready.forEach(entry -> entry.future().complete(null));
  }

  /**
   * Reads whole batches starting with the one that holds {@code offset}, up to about {@code
   * maxBytes} (at least one batch), never past the high watermark.
   *
   * @return the encoded batches; empty when {@code offset} is the high watermark
   * @throws OffsetOutOfRangeException when {@code offset} is below the log start or above the high
   *     watermark
   */
  public ByteBuffer read(long offset, int maxBytes) {
    LogSlice slice = slice(offset, maxBytes);
    ByteBuffer bytes = ByteBuffer.allocate((int) slice.size());
    try {
      while (bytes.hasRemaining()) {
        if (slice.channel().read(bytes, slice.start() + bytes.position()) < 0) {
          throw new IOException("Segment of " + directory + " ends inside a batch");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.flip();
  }

  /**
   * Locates, without reading them, the whole batches that {@link #read} would return.
   *
   * @return an empty slice when {@code offset} is the high watermark
   * @throws OffsetOutOfRangeException when {@code offset} is below the log start or above the high
   *     watermark
   */
  public LogSlice slice(long offset, int maxBytes) {
    long watermark = highWatermark;
    if (offset < logStartOffset || offset > watermark) {
      throw new OffsetOutOfRangeException(
          "Offset "
              + offset
              + " is outside the log ["
              + logStartOffset
              + ", "
              + watermark
              + "] of "
              + directory);
    }
    if (offset == watermark) {
      return LogSlice.empty(offset);
    }
    try {
      Map.Entry<Long, LogSegment> entry = segments.floorEntry(offset);
      while (entry != null) {
        LogSegment segment = entry.getValue();
        long position = segment.positionOf(offset);
        if (position >= 0) {
          return segment.slice(position, maxBytes, segment.positionBefore(watermark), offset);
        }
        entry = segments.higherEntry(entry.getKey());
      }
      return LogSlice.empty(offset);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first offset committed at or after {@code timestamp}, or the high watermark if none. */
  public long offsetForTimestamp(long timestamp) {
    try {
      for (LogSegment segment : segments.values()) {
        long offset = segment.offsetForTimestamp(timestamp);
        if (offset >= 0) {
          return Math.min(offset, highWatermark);
        }
      }
      return highWatermark;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Deletes whole segments that lie below {@code floorOffset} (the tiered offset; {@link
   * Long#MAX_VALUE} when nothing tiers) and are either older than the retention time or beyond the
   * retention size. The active segment is never deleted.
   *
   * @return how many segments were deleted
   */
  public int enforceRetention(long floorOffset) throws IOException {
    return enforceRetention(floorOffset, config.retention().toMillis());
  }

  /**
   * As {@link #enforceRetention(long)}, with the table's own retention time.
   *
   * @param retentionMillis how long rows are kept, in milliseconds
   * @return how many segments were deleted
   */
  public int enforceRetention(long floorOffset, long retentionMillis) throws IOException {
    synchronized (appendLock) {
      int deleted = 0;
      long total = segments.values().stream().mapToLong(LogSegment::sizeInBytes).sum();
      long now = clock.millis();
      while (segments.size() > 1) {
        LogSegment oldest = segments.firstEntry().getValue();
        boolean expired = now - oldest.maxTimestamp() > retentionMillis;
        boolean oversize = config.retentionBytes() >= 0 && total > config.retentionBytes();
        if (oldest.nextOffset() > floorOffset || (!expired && !oversize)) {
          break;
        }
        segments.remove(oldest.baseOffset());
        total -= oldest.sizeInBytes();
        logStartOffset = segments.firstKey();
        oldest.delete();
        deleted++;
      }
      return deleted;
    }
  }

  /** The commit timestamp of the newest batch, or -1 when the tablet has none. */
  public long maxTimestamp() {
    long newest = -1;
    for (LogSegment segment : segments.descendingMap().values()) {
      newest = Math.max(newest, segment.maxTimestamp());
      if (newest >= 0) {
        return newest;
      }
    }
    return newest;
  }

  /**
   * Closes the tablet if it holds no batch committed at or after {@code timestamp}, atomically with
   * respect to appends: an append either lands before the check (and keeps the tablet open) or
   * fails on the closed tablet.
   *
   * @return whether the tablet is closed
   */
  public boolean closeIfIdleSince(long timestamp) throws IOException {
    synchronized (appendLock) {
      if (!closed && maxTimestamp() >= timestamp) {
        return false;
      }
      closeSegments();
    }
    stopFlusher();
    return true;
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  public long logEndOffset() {
    return logEndOffset;
  }

  public long highWatermark() {
    return highWatermark;
  }

  public int segmentCount() {
    return segments.size();
  }

  /** Records appended since the tablet opened (retries of a writer's batch not counted). */
  public long appendedRecords() {
    return appendedRecords;
  }

  /** Bytes of the batches appended since the tablet opened, as stored. */
  public long appendedBytes() {
    return appendedBytes;
  }

  /** Bytes of the log's segments on disk, without their indexes. */
  public long sizeInBytes() {
    long total = 0;
    for (LogSegment segment : segments.values()) {
      total += segment.sizeInBytes();
    }
    return total;
  }

  /** Flushes and closes every segment. Appends after close fail. */
  @Override
  public void close() throws IOException {
    synchronized (appendLock) {
      closeSegments();
    }
    stopFlusher();
  }

  /** The caller holds the append lock. */
  private void closeSegments() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    flushPending();
    for (LogSegment segment : segments.values()) {
      segment.close();
    }
    if (emptyAppends != null) {
      emptyAppends.close();
    }
  }

  /** Wakes the flusher to see the tablet closed and waits for it; without the append lock. */
  private void stopFlusher() {
    synchronized (flushSignal) {
      flushSignal.notifyAll();
    }
    if (flusher != null) {
      try {
        flusher.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
