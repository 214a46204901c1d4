package io.lakestream.store.rpc;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of a successful response: byte buffers and ranges of files, sent one after another. A
 * file range goes from the page cache to the socket without passing through the heap (zero copy).
 *
 * <p>The file channels must stay open until the response is written; a channel closed in between (a
 * segment deleted by retention while a reader was being answered) fails that connection.
 */
public final class ResponseBody {
  /** A range of a file. */
  public record FileRange(FileChannel channel, long position, long count) {
    public FileRange {
      requireNonNull(channel, "channel is null");
      if (position < 0 || count < 0) {
        throw new IllegalArgumentException("Bad file range " + position + "+" + count);
      }
    }
  }

  private final List<Object> parts;
  private final long size;
  private final List<AutoCloseable> resources;

  private ResponseBody(List<Object> parts, long size, List<AutoCloseable> resources) {
    this.parts = parts;
    this.size = size;
    this.resources = resources;
  }

  public static ResponseBody of(ByteBuffer bytes) {
    return new ResponseBody(List.of(bytes), bytes.remaining(), List.of());
  }

  /**
   * Releases what the parts' memory depends on (for example a file mapping); called once the body
   * is written or given up. Failures to release are ignored: the bytes are already sent.
   */
  public void release() {
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception ignored) {
        // Nothing a reader can do about it.
      }
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The parts in order: each a {@link ByteBuffer} or a {@link FileRange}. */
  public List<Object> parts() {
    return parts;
  }

  public long size() {
    return size;
  }

  /** Collects parts; adjacent small buffers are kept apart, which the socket write gathers. */
  public static final class Builder {
    private final List<Object> parts = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private long size;

    /** Closes {@code resource} once the body is written (or dropped). */
    public Builder onRelease(AutoCloseable resource) {
      resources.add(resource);
      return this;
    }

    public Builder add(ByteBuffer bytes) {
      if (bytes.hasRemaining()) {
        parts.add(bytes);
        size += bytes.remaining();
      }
      return this;
    }

    public Builder add(FileChannel channel, long position, long count) {
      if (count > 0) {
        parts.add(new FileRange(channel, position, count));
        size += count;
      }
      return this;
    }

    /** Appends every part of {@code body}. */
    public Builder add(ResponseBody body) {
      parts.addAll(body.parts);
      resources.addAll(body.resources);
      size += body.size;
      return this;
    }

    public long size() {
      return size;
    }

    public ResponseBody build() {
      return new ResponseBody(List.copyOf(parts), size, List.copyOf(resources));
    }
  }
}
