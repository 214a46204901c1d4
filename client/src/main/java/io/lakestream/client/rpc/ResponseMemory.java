package io.lakestream.client.rpc;

import java.nio.ByteBuffer;

/**
 * Where a connection's reader puts the body of a response, for a caller that owns the memory of its
 * responses (a scanner reads fetched batches straight from it, without copying them).
 */
public interface ResponseMemory {
  /**
   * Memory for a body of {@code size} bytes, called on the connection's reader thread.
   *
   * @param size the body's length in bytes
   * @return a buffer with exactly {@code size} bytes remaining, which the reader fills and hands to
   *     the request's future as its response
   */
  ByteBuffer allocate(int size);

  /**
   * A buffer from {@link #allocate} that no future received: the request had completed already (it
   * was cancelled, or the connection failed), the body could not be read, or it was an error
   * message. The caller frees it.
   *
   * @param body a buffer this memory allocated
   */
  void discard(ByteBuffer body);
}
