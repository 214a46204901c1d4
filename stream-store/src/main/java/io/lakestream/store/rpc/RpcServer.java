package io.lakestream.store.rpc;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.client.rpc.Wire;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FileRegion;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream RPC server: length-prefixed frames over TCP (see {@link Wire}), decoded by Netty and
 * served by a {@link RequestHandler}.
 *
 * <p>Requests of one connection are handed to the handler in arrival order (so a writer's batches
 * append in the order sent) on worker threads, never on the event loop; responses go back as soon
 * as each completes, so a slow long-poll does not hold up a produce behind it. Point and prefix
 * lookups, which change nothing, are the exception: each still waits for the other requests that
 * arrived before it, but not for earlier lookups, and no later request waits for it, so the lookups
 * of one connection run concurrently. A connection whose unanswered requests exceed {@code
 * maxInFlightBytes} stops being read until responses drain (backpressure). Frames over {@code
 * maxRequestBytes} close the connection after an error reply.
 *
 * <p>No client can hold the server's resources for long without sending whole requests: a frame
 * that has started to arrive must be complete within {@code requestTimeout} (time the server itself
 * stops reading for backpressure does not count), or the connection is closed unanswered; a
 * connection between frames may stay idle (clients keep theirs open). Connections beyond {@code
 * maxConnections} in all or {@code maxConnectionsPerAddress} from one client address are closed as
 * soon as they are accepted.
 *
 * <p>The bytes of frames still arriving, on all connections together, stay within {@code
 * maxBufferedRequestBytes} (and at most a quarter of the heap): a connection whose partial frame
 * would take the total over it is answered {@link ErrorCode#SERVER_BUSY} (with the frame's request
 * id once its header has arrived), its partial frame is dropped, the server sends nothing more on
 * it, and it is closed once the client closes it or within the request timeout, its further bytes
 * read and dropped meanwhile (so the client reads the answer rather than a connection reset).
 */
public final class RpcServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);

  private final RequestHandler handler;
  private final int maxRequestBytes;
  private final long maxInFlightBytes;
  private final Duration requestTimeout;
  // Saturated, so that a timeout of centuries cannot overflow.
  private final long requestTimeoutNanos;
  private final int maxConnections;
  private final int maxConnectionsPerAddress;
  private final long maxBufferedRequestBytes;
  // Bytes of partly received frames that all connections' decoders hold together.
  private final AtomicLong bufferedRequestBytes = new AtomicLong();
  private final AtomicInteger openConnections = new AtomicInteger();
  private final Map<InetAddress, Integer> connectionsPerAddress = new ConcurrentHashMap<>();
  private final EventLoopGroup boss = new NioEventLoopGroup(1);
  private final EventLoopGroup workers = new NioEventLoopGroup(2);
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private Channel channel;

  /** A server with a 30 s request timeout and no practical connection limits. */
  public RpcServer(RequestHandler handler, int maxRequestBytes, long maxInFlightBytes) {
    this(
        handler,
        maxRequestBytes,
        maxInFlightBytes,
        Duration.ofSeconds(30),
        Integer.MAX_VALUE,
        Integer.MAX_VALUE);
  }

  /**
   * A server without a bound on the bytes of partly received frames beyond a quarter of the heap.
   */
  public RpcServer(
      RequestHandler handler,
      int maxRequestBytes,
      long maxInFlightBytes,
      Duration requestTimeout,
      int maxConnections,
      int maxConnectionsPerAddress) {
    this(
        handler,
        maxRequestBytes,
        maxInFlightBytes,
        requestTimeout,
        maxConnections,
        maxConnectionsPerAddress,
        Long.MAX_VALUE);
  }

  /**
   * @param requestTimeout how long a started frame may take to arrive whole
   * @param maxConnections open connections of all clients together
   * @param maxConnectionsPerAddress open connections from one client address
   * @param maxBufferedRequestBytes bytes of partly received frames that all connections may hold
   *     together; at most a quarter of the heap is used, whatever the value
   */
  public RpcServer(
      RequestHandler handler,
      int maxRequestBytes,
      long maxInFlightBytes,
      Duration requestTimeout,
      int maxConnections,
      int maxConnectionsPerAddress,
      long maxBufferedRequestBytes) {
    if (maxBufferedRequestBytes <= 0) {
      throw new IllegalArgumentException(
          "maxBufferedRequestBytes is not positive: " + maxBufferedRequestBytes);
    }
    this.maxBufferedRequestBytes =
        Math.min(maxBufferedRequestBytes, Runtime.getRuntime().maxMemory() / 4);
    this.handler = requireNonNull(handler, "handler is null");
    this.maxRequestBytes = maxRequestBytes;
    this.maxInFlightBytes = maxInFlightBytes;
    this.requestTimeout = requireNonNull(requestTimeout, "requestTimeout is null");
    this.requestTimeoutNanos = TimeUnit.NANOSECONDS.convert(requestTimeout);
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout is not positive: " + requestTimeout);
    }
    if (maxConnections <= 0 || maxConnectionsPerAddress <= 0) {
      throw new IllegalArgumentException(
          "Connection limits must be positive: "
              + maxConnections
              + " in all, "
              + maxConnectionsPerAddress
              + " per address");
    }
    this.maxConnections = maxConnections;
    this.maxConnectionsPerAddress = maxConnectionsPerAddress;
  }

  /** Binds and starts serving; throws if the address cannot be bound. */
  public void start(String host, int port) throws InterruptedException {
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel socket) {
                    if (!admitted(socket)) {
                      return;
                    }
                    socket
                        .pipeline()
                        .addLast(new TimedFrameDecoder())
                        .addLast(new ConnectionHandler());
                  }
                });
    channel = bootstrap.bind(host, port).sync().channel();
  }

  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** Counts a new connection against the limits, or closes it when it is over one of them. */
  private boolean admitted(SocketChannel socket) {
    InetSocketAddress remote = socket.remoteAddress();
    InetAddress address = remote == null ? null : remote.getAddress();
    if (openConnections.incrementAndGet() > maxConnections) {
      openConnections.decrementAndGet();
      LOG.debug(
          "Refused an RPC connection from {}: {} connections are open", remote, maxConnections);
      socket.close();
      return false;
    }
    if (address != null) {
      boolean[] admitted = new boolean[1];
      connectionsPerAddress.compute(
          address,
          (key, open) -> {
            int count = open == null ? 0 : open;
            admitted[0] = count < maxConnectionsPerAddress;
            return admitted[0] ? count + 1 : open;
          });
      if (!admitted[0]) {
        openConnections.decrementAndGet();
        LOG.debug(
            "Refused an RPC connection from {}: it holds {} connections already",
            address,
            maxConnectionsPerAddress);
        socket.close();
        return false;
      }
    }
    socket
        .closeFuture()
        .addListener(
            closed -> {
              openConnections.decrementAndGet();
              if (address != null) {
                connectionsPerAddress.computeIfPresent(
                    address, (key, open) -> open <= 1 ? null : open - 1);
              }
            });
    return true;
  }

  /**
   * The frame decoder, timing each frame from its first byte (a connection whose frame is not whole
   * within the request timeout is closed) and charging the bytes of its partial frame to the shared
   * budget of {@code maxBufferedRequestBytes}. Touched on the connection's event loop only.
   */
  private final class TimedFrameDecoder extends LengthFieldBasedFrameDecoder {
    private long partialSince = -1;
    private boolean armed;
    // What this connection's partial frame holds of the shared budget.
    private long charged;
    // Refused for want of budget: what arrives from now on is dropped.
    private boolean refused;

    TimedFrameDecoder() {
      super(maxRequestBytes, 0, 4, 0, 4);
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) throws Exception {
      if (refused) {
        ReferenceCountUtil.release(message);
        return;
      }
      super.channelRead(context, message);
      if (!context.channel().isActive() || refused) {
        return;
      }
      ByteBuf partial = internalBuffer();
      long held = partial.readableBytes();
      long total = bufferedRequestBytes.addAndGet(held - charged);
      charged = held;
      if (held > 0 && total > maxBufferedRequestBytes) {
        refuse(context, partial, total);
      }
      if (!partial.isReadable() && !refused) {
        partialSince = -1;
      } else if (partialSince < 0) {
        partialSince = System.nanoTime();
        if (!armed) {
          arm(context, requestTimeoutNanos);
        }
      }
    }

    /** Answers SERVER_BUSY, drops the partial frame and stops sending on the connection. */
    private void refuse(ChannelHandlerContext context, ByteBuf partial, long total) {
      int requestId =
          partial.readableBytes() >= Wire.REQUEST_HEADER
              ? partial.getInt(partial.readerIndex() + 8)
              : 0;
      LOG.debug(
          "Refused a request frame from {}: partly received frames of all connections hold {}"
              + " bytes, over the limit of {}",
          context.channel().remoteAddress(),
          total,
          maxBufferedRequestBytes);
      partial.skipBytes(partial.readableBytes());
      release();
      refused = true;
      context
          .writeAndFlush(
              errorFrame(
                  requestId,
                  ErrorCode.SERVER_BUSY,
                  "The server holds "
                      + maxBufferedRequestBytes
                      + " bytes of partly received requests, its limit"
                      + " (rpc.max-buffered-request-bytes); retry later"))
          .addListener(
              written -> {
                if (context.channel() instanceof SocketChannel socket && socket.isActive()) {
                  socket.shutdownOutput();
                }
              });
    }

    private void release() {
      bufferedRequestBytes.addAndGet(-charged);
      charged = 0;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext context) throws Exception {
      release();
      super.handlerRemoved0(context);
    }

    private void arm(ChannelHandlerContext context, long delayNanos) {
      armed = true;
      context.executor().schedule(() -> check(context), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check(ChannelHandlerContext context) {
      armed = false;
      if (partialSince < 0 || !context.channel().isActive()) {
        return;
      }
      if (!refused && !context.channel().config().isAutoRead()) {
        // Not read because of this server's own backpressure: the client is not late.
        partialSince = System.nanoTime();
        arm(context, requestTimeoutNanos);
        return;
      }
      long left = requestTimeoutNanos - (System.nanoTime() - partialSince);
      if (left > 0) {
        arm(context, left);
        return;
      }
      LOG.debug(
          "Closing RPC connection {}: a request frame not complete within {}",
          context.channel().remoteAddress(),
          requestTimeout);
      context.close();
    }
  }

  private final class ConnectionHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private final Session session = new Session();
    private final AtomicLong inFlight = new AtomicLong();

    /** Handing over of the requests that keep their order: every request but lookups. */
    private CompletableFuture<Void> ordered = CompletableFuture.completedFuture(null);

    @Override
    protected void channelRead0(ChannelHandlerContext context, ByteBuf frame) {
      if (frame.readableBytes() < Wire.REQUEST_HEADER - 4) {
        reply(context, 0, ErrorCode.INVALID_REQUEST, "Request frame too short", 0);
        context.close();
        return;
      }
      short apiKey = frame.readShort();
      short version = frame.readShort();
      int requestId = frame.readInt();
      byte[] body = new byte[frame.readableBytes()];
      frame.readBytes(body);
      long size = body.length;
      if (inFlight.addAndGet(size) > maxInFlightBytes) {
        context.channel().config().setAutoRead(false);
      }
      ApiKey key = ApiKey.forId(apiKey);
      if (key == ApiKey.LOOKUP
          && ordered.isDone()
          && answeredInline(context, requestId, version, body)) {
        return;
      }
      Runnable task =
          () -> {
            if (key == null) {
              reply(
                  context,
                  requestId,
                  ErrorCode.UNSUPPORTED_VERSION,
                  "Unknown API key " + apiKey,
                  size);
              return;
            }
            CompletableFuture<ResponseBody> response;
            try {
              response = handler.handle(session, key, version, ByteBuffer.wrap(body));
            } catch (RuntimeException e) {
              response = CompletableFuture.failedFuture(e);
            }
            response.whenComplete(
                (result, error) -> {
                  if (error == null) {
                    replyOk(context, requestId, result, size);
                  } else {
                    Throwable cause =
                        error instanceof java.util.concurrent.CompletionException
                                && error.getCause() != null
                            ? error.getCause()
                            : error;
                    if (cause instanceof RpcException rpc) {
                      reply(context, requestId, rpc.error(), rpc.getMessage(), size);
                    } else {
                      LOG.error("Unexpected failure serving {}", key, cause);
                      reply(
                          context,
                          requestId,
                          ErrorCode.UNKNOWN_SERVER_ERROR,
                          "Internal error ("
                              + cause.getClass().getSimpleName()
                              + "); see server log",
                          size);
                    }
                  }
                });
          };
      CompletableFuture<Void> handled = ordered.thenRunAsync(task, executor);
      if (key != ApiKey.LOOKUP && key != ApiKey.PREFIX_LOOKUP) {
        ordered = handled;
      }
    }

    /**
     * Serves a point lookup on this network thread if the handler can ({@link
     * RequestHandler#handleInline}); false to hand it to a request thread as usual.
     */
    private boolean answeredInline(
        ChannelHandlerContext context, int requestId, short version, byte[] body) {
      ResponseBody response;
      try {
        response = handler.handleInline(session, ApiKey.LOOKUP, version, ByteBuffer.wrap(body));
      } catch (RpcException e) {
        reply(context, requestId, e.error(), e.getMessage(), body.length);
        return true;
      } catch (RuntimeException e) {
        LOG.debug("Point lookup not answered inline; handing it over", e);
        return false;
      }
      if (response == null) {
        return false;
      }
      replyOk(context, requestId, response, body.length);
      return true;
    }

    private void replyOk(
        ChannelHandlerContext context, int requestId, ResponseBody body, long size) {
      long length = Wire.RESPONSE_HEADER - 4L + body.size();
      if (length > Integer.MAX_VALUE) {
        body.release();
        reply(context, requestId, ErrorCode.UNKNOWN_SERVER_ERROR, "Response too large", size);
        return;
      }
      ByteBuf header = Unpooled.buffer(Wire.RESPONSE_HEADER);
      header.writeInt((int) length);
      header.writeInt(requestId);
      header.writeShort(ErrorCode.NONE.code());
      // All parts in one event-loop task, so no other response lands between them.
      Runnable write =
          () -> {
            context.write(header);
            for (Object part : body.parts()) {
              if (part instanceof ByteBuffer bytes) {
                context.write(Unpooled.wrappedBuffer(bytes));
              } else {
                context.write(new RangeRegion((ResponseBody.FileRange) part));
              }
            }
            // Completes once every part is written, or failed with the connection.
            context.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(done -> body.release());
          };
      if (context.channel().eventLoop().inEventLoop()) {
        write.run();
      } else {
        try {
          context.channel().eventLoop().execute(write);
        } catch (java.util.concurrent.RejectedExecutionException e) {
          body.release();
        }
      }
      released(context, size);
    }

    private void reply(
        ChannelHandlerContext context, int requestId, ErrorCode error, String message, long size) {
      send(context, errorFrame(requestId, error, message), size);
    }

    private void send(ChannelHandlerContext context, ByteBuf out, long size) {
      context.writeAndFlush(out);
      released(context, size);
    }

    private void released(ChannelHandlerContext context, long size) {
      if (inFlight.addAndGet(-size) <= maxInFlightBytes / 2
          && !context.channel().config().isAutoRead()) {
        context.channel().config().setAutoRead(true);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
      if (cause instanceof TooLongFrameException) {
        reply(
            context,
            0,
            ErrorCode.REQUEST_TOO_LARGE,
            "Request larger than " + maxRequestBytes + " bytes",
            0);
      } else {
        LOG.debug("Closing RPC connection {}", context.channel().remoteAddress(), cause);
      }
      context.close();
    }
  }

  /** A response frame carrying an error and its message. */
  private static ByteBuf errorFrame(int requestId, ErrorCode error, String message) {
    byte[] text = (message == null ? error.name() : message).getBytes(StandardCharsets.UTF_8);
    int length = Math.min(text.length, Short.MAX_VALUE);
    ByteBuf out = Unpooled.buffer(Wire.RESPONSE_HEADER + 2 + length);
    out.writeInt(Wire.RESPONSE_HEADER - 4 + 2 + length);
    out.writeInt(requestId);
    out.writeShort(error.code());
    out.writeShort(length);
    out.writeBytes(text, 0, length);
    return out;
  }

  /**
   * A file range as a Netty file region: sent with {@code transferTo} (sendfile), so its bytes
   * never enter the heap. The channel belongs to the log segment and is not closed when the region
   * is released.
   */
  private static final class RangeRegion extends AbstractReferenceCounted implements FileRegion {
    private final ResponseBody.FileRange range;
    private long transferred;

    RangeRegion(ResponseBody.FileRange range) {
      this.range = range;
    }

    @Override
    public long position() {
      return range.position();
    }

    @Override
    @Deprecated
    public long transfered() {
      return transferred;
    }

    @Override
    public long transferred() {
      return transferred;
    }

    @Override
    public long count() {
      return range.count();
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
      long remaining = range.count() - position;
      if (remaining <= 0) {
        return 0;
      }
      long written = range.channel().transferTo(range.position() + position, remaining, target);
      if (written > 0) {
        transferred += written;
      } else if (written == 0 && range.channel().size() < range.position() + range.count()) {
        throw new IOException("Log segment shrank below a range being sent");
      }
      return written;
    }

    @Override
    public RangeRegion retain() {
      super.retain();
      return this;
    }

    @Override
    public RangeRegion retain(int increment) {
      super.retain(increment);
      return this;
    }

    @Override
    public RangeRegion touch() {
      return this;
    }

    @Override
    public RangeRegion touch(Object hint) {
      return this;
    }

    @Override
    protected void deallocate() {
      // The segment owns the channel.
    }
  }

  /** Stops accepting, closes connections and waits briefly for in-flight work. */
  @Override
  public void close() {
    if (channel != null) {
      channel.close().syncUninterruptibly();
    }
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    executor.shutdown();
  }
}
