package io.lakestream.flight.scan;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.TableBucket;
import io.lakestream.client.TablePath;
import io.lakestream.client.scan.LogRange;
import io.lakestream.lake.LogRangeReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;

/**
 * The log tails of streaming tables, decoded, kept between queries: a query fetches only the part
 * of each bucket's range that an earlier query did not, and the parts tiering has moved into the
 * lake are dropped. Log offsets never change their rows, so a cached piece is exact for as long as
 * the table (by id) exists.
 *
 * <p>Pieces hold every column (queries project when they copy rows into DuckDB or scan a file). A
 * piece of at least {@value #FILE_ROWS} rows that a query reads whole is also written once as a
 * Parquet file, which that query and later ones scan together with the lake's files; so is a
 * smaller piece that a second query reads whole, unchanged, when no bucket that query reads grew
 * since its last read (a tail that stopped growing: each query would otherwise copy it and add it
 * to the view with {@code UNION ALL}, which keeps join filters out of the lake's scans; while
 * another bucket grows, its rows are copied and the {@code UNION ALL} is there anyway). A small
 * piece with a file takes later rows all the same: it is merged with them into a new piece and its
 * file goes, so a slow stream leaves no trail of small files. The cache holds at most {@code
 * maxBytes} of Arrow buffers: the least recently read buckets go first, and a tail larger than the
 * whole budget is read for its query only. Thread safe: reads take the cache's lock for their whole
 * fetch (queries fetch their tails one at a time), and a reader gets slices of its own (sharing
 * buffers by reference count) that stay valid after pieces are dropped.
 */
public final class TailCache {
  /**
   * A run of consecutive log rows of one bucket: offsets {@code [base, base + rows)}; once written
   * to a file it is sealed (later rows go to the next piece), so the file keeps matching it.
   */
  private static final class Piece {
    private final long base;
    private final int schemaId;
    private final VectorSchemaRoot root;
    private final long bytes;
    private final boolean owned;
    private TailFile file;
    // Whether a query read the whole piece without a file: a second one writes it (see file()).
    private boolean readWhole;

    /**
     * @param owned whether the root's buffers are the cache's own; a fetched piece's share the
     *     fetch response they arrived in (with that response's other batches), which the cache must
     *     not keep alive, so it copies such a piece before keeping it
     */
    Piece(long base, int schemaId, VectorSchemaRoot root, long bytes, boolean owned) {
      this.base = base;
      this.schemaId = schemaId;
      this.root = root;
      this.bytes = bytes;
      this.owned = owned;
    }

    long base() {
      return base;
    }

    int schemaId() {
      return schemaId;
    }

    VectorSchemaRoot root() {
      return root;
    }

    long bytes() {
      return bytes;
    }

    long end() {
      return base + root.getRowCount();
    }

    /** Releases the rows; the file goes once no query reads it. */
    void close() {
      root.close();
      if (file != null) {
        file.retire();
        file = null;
      }
    }
  }

  /**
   * A Parquet file with exactly the rows of one cached piece (every column, with the lake's field
   * ids), which a query scans together with the lake's files: DuckDB pushes join filters into one
   * scan, not through {@code UNION ALL}. Deleted when its piece is dropped and no query reads it.
   */
  public static final class TailFile {
    private final Path path;
    private int readers; // guarded by the cache
    private boolean retired; // guarded by the cache

    private TailFile(Path path) {
      this.path = path;
    }

    public Path path() {
      return path;
    }

    private void retire() {
      retired = true;
      deleteIfUnused();
    }

    private void deleteIfUnused() {
      if (retired && readers == 0) {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          // A leftover file in the cache directory only takes space until the server stops.
        }
      }
    }
  }

  /** Writes rows (every column of a cached piece) as a Parquet file at {@code target}. */
  @FunctionalInterface
  interface FileWriter {
    void write(VectorSchemaRoot rows, Path target) throws Exception;
  }

  private record Key(String tableId, String partition, int bucket) {}

  /** The cached pieces of a bucket, contiguous, from {@code start} to {@code end}. */
  private static final class Bucket {
    final Deque<Piece> pieces = new ArrayDeque<>();
    long start;
    long end;
    long bytes;
  }

  /**
   * Rows of a range, in offset order, the first at {@code offset}: either rows the caller owns (and
   * closes), or, with a null root, a file that holds them, which the caller reads until it
   * {@linkplain #release releases} it.
   */
  record Slice(int schemaId, long offset, VectorSchemaRoot root, TailFile file) {}

  /** Rows of a merged piece at most (see {@link #append}). */
  static final int PIECE_ROWS = 128 * 1024;

  /**
   * Rows a piece needs to be written to a file the first time a query reads it whole; smaller runs
   * are cheaper to copy, until a second query reads them whole, unchanged.
   */
  static final int FILE_ROWS = 8192;

  private final long maxBytes;
  private final Duration readTimeout;
  private final Path directory;
  private final Map<Key, Bucket> buckets = new LinkedHashMap<>(16, 0.75f, true); // access order
  private long bytes;

  /**
   * @param directory where pieces are written as files, or null to keep them in memory only
   */
  public TailCache(long maxBytes, Duration readTimeout, Path directory) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must not be negative: " + maxBytes);
    }
    this.maxBytes = maxBytes;
    this.readTimeout = requireNonNull(readTimeout, "readTimeout is null");
    this.directory = directory;
  }

  public TailCache(long maxBytes, Duration readTimeout) {
    this(maxBytes, readTimeout, null);
  }

  /** Lets files of {@link Slice}s go once their pieces are dropped. */
  synchronized void release(List<TailFile> files) {
    for (TailFile file : files) {
      file.readers--;
      file.deleteIfUnused();
    }
  }

  /**
   * The rows of {@code ranges} of a table, fetching from the log what the cache lacks.
   *
   * @return per range (in order), its rows as slices in offset order; the caller closes them
   */
  synchronized List<Slice> read(
      TablePath path, io.lakestream.client.Table stream, List<LogRange> ranges) {
    return read(path, stream, ranges, null);
  }

  /**
   * The rows of {@code ranges} of a table, fetching from the log what the cache lacks; whole pieces
   * of at least {@value #FILE_ROWS} rows, and smaller ones read whole before, come as files,
   * written by {@code writer} the first time. A piece that cannot be written comes as rows.
   *
   * @return per range (in order), its rows as slices in offset order; the caller closes the rows
   *     and releases the files
   */
  synchronized List<Slice> read(
      TablePath path, io.lakestream.client.Table stream, List<LogRange> ranges, FileWriter writer) {
    // What to fetch per range: from the end of the cached pieces (or the range start) on.
    List<LogRange> missing = new ArrayList<>();
    for (LogRange range : ranges) {
      Bucket bucket = buckets.get(key(stream, range));
      long from = range.from();
      if (bucket != null && bucket.start <= range.from() && range.from() <= bucket.end) {
        from = Math.max(from, bucket.end);
      }
      if (from < range.to()) {
        missing.add(new LogRange(range.partition(), range.bucket(), from, range.to()));
      }
    }
    Map<TableBucket, List<Piece>> fetched = new HashMap<>();
    if (!missing.isEmpty()) {
      try {
        LogRangeReader.read(
            path,
            stream.newScanner(),
            missing,
            readTimeout,
            Long.MAX_VALUE,
            new HashMap<TableBucket, Long>(),
            (range, batch, first, end) -> {
              VectorSchemaRoot rows = batch.root().slice(first, end - first);
              fetched
                  .computeIfAbsent(
                      new TableBucket(range.partition(), range.bucket()), b -> new ArrayList<>())
                  .add(
                      new Piece(
                          batch.baseOffset() + first, batch.schemaId(), rows, size(rows), false));
            });
      } catch (IOException e) {
        fetched.values().forEach(pieces -> pieces.forEach(Piece::close));
        throw new UncheckedIOException("Cannot read the log of " + path, e);
      } catch (RuntimeException e) {
        fetched.values().forEach(pieces -> pieces.forEach(Piece::close));
        throw e;
      }
    }
    List<Bucket> read = new ArrayList<>(ranges.size());
    for (LogRange range : ranges) {
      Key key = key(stream, range);
      List<Piece> fresh =
          fetched.getOrDefault(new TableBucket(range.partition(), range.bucket()), List.of());
      Bucket bucket = buckets.get(key);
      boolean extends_ =
          bucket != null
              && bucket.start <= range.from()
              && range.from() <= bucket.end
              && (fresh.isEmpty() || fresh.get(0).base() == bucket.end);
      if (!extends_) {
        if (bucket != null) {
          drop(key, bucket);
        }
        bucket = new Bucket();
        bucket.start = range.from();
        bucket.end = range.from();
        if (!fresh.isEmpty() && fresh.get(0).base() != range.from()) {
          throw new IllegalStateException(
              "Log of " + path + " read from " + fresh.get(0).base() + ", not " + range.from());
        }
        buckets.put(key, bucket);
      }
      append(bucket, fresh);
      // Rows below the range start are in the lake now: no query needs them any more.
      while (!bucket.pieces.isEmpty() && bucket.pieces.peekFirst().end() <= range.from()) {
        Piece gone = bucket.pieces.removeFirst();
        bucket.bytes -= gone.bytes();
        bytes -= gone.bytes();
        gone.close();
      }
      bucket.start = bucket.pieces.isEmpty() ? bucket.end : bucket.pieces.peekFirst().base();
      read.add(bucket);
    }
    // Small pieces get files only once no bucket read has grown since its last read (a small piece
    // read whole for the first time is new rows): while one bucket grows, its rows are copied into
    // a table and the view has its UNION ALL anyway, and a small piece is cheaper to copy than to
    // write (a stream growing in one bucket at a time leaves the others unchanged between queries).
    boolean stopped = true;
    for (int i = 0; i < ranges.size() && stopped; i++) {
      LogRange range = ranges.get(i);
      for (Piece piece : read.get(i).pieces) {
        if (piece.file == null
            && !piece.readWhole
            && piece.root().getRowCount() < FILE_ROWS
            && piece.base() >= range.from()
            && piece.base() < range.to()
            && piece.end() <= range.to()) {
          stopped = false;
          break;
        }
      }
    }
    List<Slice> slices = new ArrayList<>();
    for (int i = 0; i < ranges.size(); i++) {
      LogRange range = ranges.get(i);
      Bucket bucket = read.get(i);
      for (Piece piece : bucket.pieces) {
        long first = Math.max(piece.base(), range.from());
        long last = Math.min(piece.end(), range.to());
        if (first >= last) {
          continue;
        }
        TailFile file =
            first == piece.base() && last == piece.end() ? file(piece, writer, stopped) : null;
        if (file != null) {
          file.readers++;
          slices.add(new Slice(piece.schemaId(), first, null, file));
        } else {
          slices.add(
              new Slice(
                  piece.schemaId(),
                  first,
                  piece.root().slice((int) (first - piece.base()), (int) (last - first)),
                  null));
        }
      }
      if (bucket.bytes > maxBytes) {
        drop(key(stream, range), bucket); // too large to keep: this query's slices stay valid
      }
    }
    evict();
    return slices;
  }

  /**
   * The piece's file, written now if it has none; null when it is not to have one. A piece of fewer
   * than {@value #FILE_ROWS} rows gets one only when it was read whole before and no bucket of the
   * read grew since ({@code stopped}).
   */
  private TailFile file(Piece piece, FileWriter writer, boolean stopped) {
    if (piece.file != null) {
      return piece.file;
    }
    if (writer == null || directory == null || piece.root().getFieldVectors().isEmpty()) {
      return null;
    }
    if (piece.root().getRowCount() < FILE_ROWS && (!piece.readWhole || !stopped)) {
      piece.readWhole = true;
      return null;
    }
    Path target = directory.resolve(UUID.randomUUID() + ".parquet");
    try {
      writer.write(piece.root(), target);
    } catch (Exception e) {
      try {
        Files.deleteIfExists(target);
      } catch (IOException ignored) {
        // the directory is removed with the cache
      }
      return null; // the rows are copied instead
    }
    piece.file = new TailFile(target);
    return piece.file;
  }

  /**
   * Appends fetched pieces to a bucket, merging runs of small ones of one schema (the last cached
   * piece included, and its file dropped when it is smaller than {@value #FILE_ROWS} rows) into
   * pieces of up to {@value #PIECE_ROWS} rows: DuckDB takes few large Arrow batches much faster
   * than many small ones, and log batches are often small.
   */
  private void append(Bucket bucket, List<Piece> fresh) {
    if (fresh.isEmpty()) {
      return;
    }
    List<Piece> run = new ArrayList<>();
    long runRows = 0;
    Piece last = bucket.pieces.peekLast();
    if (last != null
        && (last.file == null || last.root().getRowCount() < FILE_ROWS)
        && last.root().getRowCount() < PIECE_ROWS
        && last.schemaId() == fresh.get(0).schemaId()) {
      bucket.pieces.removeLast();
      bucket.bytes -= last.bytes();
      bytes -= last.bytes();
      run.add(last);
      runRows = last.root().getRowCount();
    }
    for (Piece piece : fresh) {
      if (!run.isEmpty()
          && (run.get(0).schemaId() != piece.schemaId()
              || runRows + piece.root().getRowCount() > PIECE_ROWS)) {
        add(bucket, merge(run));
        run.clear();
        runRows = 0;
      }
      run.add(piece);
      runRows += piece.root().getRowCount();
    }
    add(bucket, merge(run));
    bucket.end = fresh.getLast().end();
  }

  private void add(Bucket bucket, Piece piece) {
    bucket.pieces.addLast(piece);
    bucket.bytes += piece.bytes();
    bytes += piece.bytes();
  }

  /**
   * One piece, in the cache's own memory, with the rows of consecutive pieces of one schema (which
   * it closes).
   */
  private static Piece merge(List<Piece> run) {
    if (run.size() == 1 && run.get(0).owned) {
      return run.get(0);
    }
    VectorSchemaRoot first = run.get(0).root();
    if (first.getFieldVectors().isEmpty()) {
      throw new IllegalStateException("A log batch without columns cannot be cached");
    }
    BufferAllocator allocator = first.getFieldVectors().get(0).getAllocator();
    VectorSchemaRoot merged = VectorSchemaRoot.create(first.getSchema(), allocator);
    try {
      merged.allocateNew(); // the appender reads the target's offset buffers
      VectorSchemaRootAppender.append(
          false, merged, run.stream().map(Piece::root).toArray(VectorSchemaRoot[]::new));
    } catch (RuntimeException e) {
      merged.close();
      throw e;
    }
    run.forEach(Piece::close);
    return new Piece(run.get(0).base(), run.get(0).schemaId(), merged, size(merged), true);
  }

  /** Drops every cached tail. */
  synchronized void clear() {
    for (Bucket bucket : buckets.values()) {
      bucket.pieces.forEach(Piece::close);
    }
    buckets.clear();
    bytes = 0;
  }

  /** Bytes of Arrow buffers the cache holds. */
  synchronized long bytes() {
    return bytes;
  }

  private void evict() {
    Iterator<Map.Entry<Key, Bucket>> oldest = buckets.entrySet().iterator();
    while (bytes > maxBytes && oldest.hasNext()) {
      Bucket bucket = oldest.next().getValue();
      bucket.pieces.forEach(Piece::close);
      bytes -= bucket.bytes;
      oldest.remove();
    }
  }

  private void drop(Key key, Bucket bucket) {
    bucket.pieces.forEach(Piece::close);
    bytes -= bucket.bytes;
    buckets.remove(key);
  }

  private static Key key(io.lakestream.client.Table stream, LogRange range) {
    return new Key(stream.id(), range.partition(), range.bucket());
  }

  private static long size(VectorSchemaRoot root) {
    long size = 0;
    for (FieldVector vector : root.getFieldVectors()) {
      size += vector.getBufferSize();
    }
    return size;
  }
}
