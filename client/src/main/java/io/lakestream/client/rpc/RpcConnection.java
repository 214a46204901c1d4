package io.lakestream.client.rpc;

import static java.util.Objects.requireNonNull;

import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One TCP connection to a Lakestream server's stream RPC. Requests are pipelined: {@link #send}
 * writes a frame and returns at once; a reader thread completes each future when its response
 * arrives, in whatever order the server answers.
 *
 * <p>Responses are read from the socket into direct memory, and a response body straight into the
 * memory its caller supplies ({@link ResponseMemory}), so that fetched batches reach their reader
 * with no copy in between.
 *
 * <p>Thread safe. When the connection fails, every pending and later request fails with {@link
 * ErrorCode#NETWORK_ERROR}; the caller opens a new connection.
 */
public final class RpcConnection implements AutoCloseable {
  private static final int INBOUND_BYTES = 64 * 1024;

  private final SocketChannel channel;
  private final Socket socket;
  private final OutputStream out;
  // Read by the reader thread only: what was read from the socket and not consumed yet.
  private final ByteBuffer inbound = ByteBuffer.allocateDirect(INBOUND_BYTES).limit(0);
  private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();

  /** A request waiting for its response, and the memory its response body is read into. */
  private record Pending(CompletableFuture<ByteBuffer> future, ResponseMemory memory) {}

  private final AtomicInteger nextRequestId = new AtomicInteger();
  private final Thread reader;
  private volatile RpcException failure;

  private RpcConnection(SocketChannel channel) throws IOException {
    this.channel = requireNonNull(channel, "channel is null");
    this.socket = channel.socket();
    this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    this.reader = new Thread(this::readResponses, "lakestream-rpc-reader-" + socket.getPort());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Connects to {@code host:port} with TCP no-delay and keep-alive, and starts the reader thread (a
   * daemon). Sends nothing: authenticating is the caller's first request.
   *
   * @param host the server's host name or IP address
   * @param port the server's stream RPC port
   * @param connectTimeout how long the TCP connect may take
   * @return the open connection
   * @throws IOException if the connect fails or times out
   */
  public static RpcConnection open(String host, int port, Duration connectTimeout)
      throws IOException {
    SocketChannel channel = SocketChannel.open();
    try {
      Socket socket = channel.socket();
      socket.setTcpNoDelay(true);
      socket.setKeepAlive(true);
      socket.connect(new InetSocketAddress(host, port), (int) connectTimeout.toMillis());
      return new RpcConnection(channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Sends a request.
   *
   * @param key the request, sent with its {@link ApiKey#latestVersion()}
   * @param body the request body from position to limit
   * @return the response body, or a failure with the server's {@link RpcException}
   */
  public CompletableFuture<ByteBuffer> send(ApiKey key, ByteBuffer body) {
    return send(key, new ByteBuffer[] {body});
  }

  /**
   * Sends a request whose body is the concatenation of {@code parts}, written one after another
   * without joining them first.
   *
   * @param key the request, sent with its {@link ApiKey#latestVersion()}
   * @param parts the body's parts, each from position to limit
   * @return the response body, or a failure with the server's {@link RpcException}
   */
  public CompletableFuture<ByteBuffer> send(ApiKey key, ByteBuffer... parts) {
    return send(key, null, parts);
  }

  /**
   * Sends a request whose response body is read into {@code memory} (null for a new heap array). A
   * body the returned future does not receive goes back to {@link ResponseMemory#discard}.
   *
   * @param key the request, sent with its {@link ApiKey#latestVersion()}
   * @param memory where the response body goes, or null for a new heap array
   * @param parts the body's parts, each from position to limit
   * @return the response body, or a failure with the server's {@link RpcException} ({@code
   *     NETWORK_ERROR} when the connection has failed or fails before the response)
   */
  public CompletableFuture<ByteBuffer> send(
      ApiKey key, ResponseMemory memory, ByteBuffer... parts) {
    CompletableFuture<ByteBuffer> future = new CompletableFuture<>();
    RpcException failed = failure;
    if (failed != null) {
      future.completeExceptionally(failed);
      return future;
    }
    int requestId = nextRequestId.incrementAndGet();
    pending.put(requestId, new Pending(future, memory));
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
        fill(Wire.RESPONSE_HEADER);
        int length = inbound.getInt();
        if (length < Wire.RESPONSE_HEADER - 4) {
          throw new IOException("Malformed response frame of length " + length);
        }
        int requestId = inbound.getInt();
        short code = inbound.getShort();
        int size = length - 6;
        Pending waiting = pending.remove(requestId);
        ResponseMemory memory = waiting == null ? null : waiting.memory();
        ByteBuffer body = memory == null ? ByteBuffer.allocate(size) : memory.allocate(size);
        int start = body.position();
        try {
          readFully(body);
        } catch (IOException | RuntimeException e) {
          if (memory != null) {
            memory.discard(body);
          }
          throw e;
        }
        body.position(start);
        deliver(waiting, memory, code, body);
      }
    } catch (IOException | RuntimeException e) {
      fail(
          new RpcException(
              ErrorCode.NETWORK_ERROR,
              "Connection to " + socket.getRemoteSocketAddress() + " failed: " + e.getMessage()));
    }
  }

  /**
   * Completes the request's future with its response. A body no future takes goes back to its
   * memory first, so that the memory has it back by the time the caller sees the outcome.
   */
  private static void deliver(Pending waiting, ResponseMemory memory, short code, ByteBuffer body) {
    ErrorCode error = ErrorCode.forCode(code);
    if (waiting != null && error == ErrorCode.NONE) {
      if (!waiting.future().complete(body) && memory != null) {
        memory.discard(body);
      }
      return;
    }
    RpcException failure =
        error == ErrorCode.NONE ? null : new RpcException(error, Wire.getString(body));
    if (memory != null) {
      memory.discard(body);
    }
    if (waiting != null) {
      waiting.future().completeExceptionally(failure);
    }
  }

  /** Reads until {@code inbound} holds at least {@code bytes} unread bytes. */
  private void fill(int bytes) throws IOException {
    if (inbound.remaining() >= bytes) {
      return;
    }
    inbound.compact();
    while (inbound.position() < bytes) {
      if (channel.read(inbound) < 0) {
        throw new EOFException("The server closed the connection");
      }
    }
    inbound.flip();
  }

  /** Fills {@code body} to its limit: what {@code inbound} holds first, then from the socket. */
  private void readFully(ByteBuffer body) throws IOException {
    takeBuffered(body);
    while (body.hasRemaining()) {
      if (body.remaining() < INBOUND_BYTES / 4) {
        // A short body (and whatever follows it) goes through inbound: one read, not several.
        fill(body.remaining());
        takeBuffered(body);
        return;
      }
      if (channel.read(body) < 0) {
        throw new EOFException("The server closed the connection");
      }
    }
  }

  /** Moves what {@code inbound} holds, up to what {@code body} has room for, into {@code body}. */
  private void takeBuffered(ByteBuffer body) {
    int bytes = Math.min(inbound.remaining(), body.remaining());
    body.put(body.position(), inbound, inbound.position(), bytes);
    body.position(body.position() + bytes);
    inbound.position(inbound.position() + bytes);
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

  /**
   * Whether the connection has neither failed nor been closed.
   *
   * @return {@code true} while requests can be sent
   */
  public boolean isOpen() {
    return failure == null;
  }

  /** Closes the socket; pending and later requests fail with {@code NETWORK_ERROR}. */
  @Override
  public void close() {
    fail(new RpcException(ErrorCode.NETWORK_ERROR, "Connection closed"));
  }
}
