package io.lakestream.client.rpc;

import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * One TCP connection to a Lakestream server's stream RPC. Requests are pipelined: {@link #send}
 * writes a frame and returns at once; a reader thread completes each future when its response
 * arrives, in whatever order the server answers.
 *
 * <p>Thread safe. When the connection fails, every pending and later request fails with {@link
 * ErrorCode#NETWORK_ERROR}; the caller opens a new connection.
 */
public final class RpcConnection implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;
  private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();

  /** A request waiting for its response, and where its response body is to be read into. */
  private record Pending(CompletableFuture<ByteBuffer> future, IntFunction<byte[]> bodyArrays) {}

  private final AtomicInteger nextRequestId = new AtomicInteger();
  private final Thread reader;
  private volatile RpcException failure;

  private RpcConnection(Socket socket) throws IOException {
    this.socket = requireNonNull(socket, "socket is null");
    this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
    this.reader = new Thread(this::readResponses, "lakestream-rpc-reader-" + socket.getPort());
    reader.setDaemon(true);
    reader.start();
  }

  /** Connects to {@code host:port}. */
  public static RpcConnection open(String host, int port, Duration connectTimeout)
      throws IOException {
    Socket socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.setKeepAlive(true);
    socket.connect(new InetSocketAddress(host, port), (int) connectTimeout.toMillis());
    return new RpcConnection(socket);
  }

  /**
   * Sends a request.
   *
   * @return the response body, or a failure with the server's {@link RpcException}
   */
  public CompletableFuture<ByteBuffer> send(ApiKey key, ByteBuffer body) {
    return send(key, new ByteBuffer[] {body});
  }

  /**
   * Sends a request whose body is the concatenation of {@code parts}, written one after another
   * without joining them first.
   *
   * @return the response body, or a failure with the server's {@link RpcException}
   */
  public CompletableFuture<ByteBuffer> send(ApiKey key, ByteBuffer... parts) {
    return send(key, null, parts);
  }

  /**
   * Sends a request whose response body is read into an array from {@code bodyArrays} (called on
   * the reader thread with the body's size; it may hand out a larger array to reuse), so a caller
   * that is done with a response before the next one can recycle its memory. Null for new arrays.
   */
  public CompletableFuture<ByteBuffer> send(
      ApiKey key, IntFunction<byte[]> bodyArrays, ByteBuffer... parts) {
    CompletableFuture<ByteBuffer> future = new CompletableFuture<>();
    RpcException failed = failure;
    if (failed != null) {
      future.completeExceptionally(failed);
      return future;
    }
    int requestId = nextRequestId.incrementAndGet();
    pending.put(requestId, new Pending(future, bodyArrays));
    if (failure != null && pending.remove(requestId) != null) {
      // The connection failed while this request was being registered.
      future.completeExceptionally(failure);
      return future;
    }
    int bodySize = 0;
    for (ByteBuffer part : parts) {
      bodySize += part.remaining();
    }
    ByteBuffer header = ByteBuffer.allocate(Wire.REQUEST_HEADER);
    header.putInt(Wire.REQUEST_HEADER - 4 + bodySize);
    header.putShort(key.id()).putShort(key.latestVersion()).putInt(requestId);
    try {
      synchronized (out) {
        out.write(header.array());
        for (ByteBuffer part : parts) {
          if (part.hasArray()) {
            out.write(part.array(), part.arrayOffset() + part.position(), part.remaining());
          } else {
            byte[] copy = new byte[part.remaining()];
            part.duplicate().get(copy);
            out.write(copy);
          }
        }
        out.flush();
      }
    } catch (IOException e) {
      fail(
          new RpcException(
              ErrorCode.NETWORK_ERROR,
              "Cannot send to " + socket.getRemoteSocketAddress() + ": " + e.getMessage()));
    }
    return future;
  }

  private void readResponses() {
    try {
      while (true) {
        int length = in.readInt();
        if (length < Wire.RESPONSE_HEADER - 4) {
          throw new IOException("Malformed response frame of length " + length);
        }
        int requestId = in.readInt();
        short code = in.readShort();
        int size = length - 6;
        Pending waiting = pending.remove(requestId);
        byte[] body =
            waiting == null || waiting.bodyArrays() == null
                ? new byte[size]
                : waiting.bodyArrays().apply(size);
        in.readFully(body, 0, size);
        if (waiting == null) {
          continue;
        }
        ErrorCode error = ErrorCode.forCode(code);
        if (error == ErrorCode.NONE) {
          waiting.future().complete(ByteBuffer.wrap(body, 0, size));
        } else {
          waiting
              .future()
              .completeExceptionally(
                  new RpcException(error, Wire.getString(ByteBuffer.wrap(body, 0, size))));
        }
      }
    } catch (IOException | RuntimeException e) {
      fail(
          new RpcException(
              ErrorCode.NETWORK_ERROR,
              "Connection to " + socket.getRemoteSocketAddress() + " failed: " + e.getMessage()));
    }
  }

  private void fail(RpcException error) {
    if (failure == null) {
      failure = error;
    }
    try {
      socket.close();
    } catch (IOException ignored) {
      // Already failing; the error above is what callers see.
    }
    for (Integer requestId : pending.keySet()) {
      Pending waiting = pending.remove(requestId);
      if (waiting != null) {
        waiting.future().completeExceptionally(error);
      }
    }
  }

  public boolean isOpen() {
    return failure == null;
  }

  @Override
  public void close() {
    fail(new RpcException(ErrorCode.NETWORK_ERROR, "Connection closed"));
  }
}
