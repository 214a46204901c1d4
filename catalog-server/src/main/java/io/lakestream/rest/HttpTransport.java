package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/1.1 on Netty: reads whole requests, hands each to a {@link Service} on a worker thread (a
 * service may block on the metadata store, on files and on commit locks), and writes its {@link
 * Answer}. A call the service can answer without waiting ({@link Service#answerWithoutWaiting}) is
 * answered on the event loop that read it instead. Requests on one connection are answered in
 * order, one at a time; a client that pipelines more than {@value #MAX_QUEUED} requests is no
 * longer read until they are answered.
 *
 * <p>A request body beyond the size limit is read and dropped (up to {@value #MAX_DISCARDED_BYTES}
 * bytes) before the refusal is sent, so a client still sending it does not lose the answer to a
 * connection reset. Malformed requests, request lines and headers that are too long are answered by
 * the service's {@link Service#refuse} and the connection is closed.
 */
final class HttpTransport implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);
  private static final int MAX_INITIAL_LINE_BYTES = 16 * 1024;
  private static final int MAX_HEADER_BYTES = 16 * 1024;
  private static final int MAX_QUEUED = 16;
  private static final long MAX_DISCARDED_BYTES = 8L * 1024 * 1024;
  private static final int INITIAL_BODY_BYTES = 64 * 1024;
  private static final int MAX_WORKERS = 256;
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
  // Smaller bodies cost less to copy than to look up; the budget holds a few hundred table answers.
  private static final int MIN_DIRECT_BODY_BYTES = 8 * 1024;
  private static final long DIRECT_BODY_BUDGET_BYTES = 32L * 1024 * 1024;

  /** One whole request. Header names are in lower case, each with its first value. */
  record Call(
      String method,
      String path,
      String queryString,
      Map<String, String> headers,
      byte[] body,
      boolean bodyTooLarge) {

    String header(String lowerCaseName) {
      return headers.get(lowerCaseName);
    }
  }

  /**
   * One answer: a status, headers and a body (empty for none). A {@code reusedBody} is an array the
   * service hands out again for later calls and never changes; the transport keeps it off-heap
   * between sends.
   */
  record Answer(int status, Map<String, String> headers, byte[] body, boolean reusedBody) {
    Answer(int status, Map<String, String> headers, byte[] body) {
      this(status, headers, body, false);
    }
  }

  /** What the transport serves. */
  interface Service {
    /** Answers a call; runs on a worker thread and may block. */
    Answer answer(Call call);

    /**
     * Answers a call on the connection's event loop if that needs no waiting at all (answers held
     * in memory, reads that fail rather than wait); null, or a thrown exception, hands the call to
     * {@link #answer} on a worker. Must have no effect when it does not answer. Skipping the
     * hand-off saves two thread wake-ups per request, a large share of a cached answer's cost.
     */
    default Answer answerWithoutWaiting(Call call) {
      return null;
    }

    /**
     * Answers what could not be read as a request: {@code status} is 400, 413, 414 or 431 and
     * {@code reason} says why.
     */
    Answer refuse(int status, String reason);
  }

  private final Service service;
  private final long maxBodyBytes;
  private final Duration stopTimeout;
  private final EventLoopGroup loops;
  private final ThreadPoolExecutor workers;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final DirectBodyCache directBodies = new DirectBodyCache(DIRECT_BODY_BUDGET_BYTES);
  private final Object idle = new Object();
  private final AtomicInteger running = new AtomicInteger();
  private final boolean epoll;
  private volatile Channel listening;

  /** A transport on Netty's epoll transport where it is available, NIO elsewhere. */
  HttpTransport(Service service, long maxBodyBytes, Duration stopTimeout) {
    this(service, maxBodyBytes, stopTimeout, Epoll.isAvailable());
  }

  /**
   * @param epoll whether to use Netty's epoll transport (it must be available) rather than NIO
   */
  HttpTransport(Service service, long maxBodyBytes, Duration stopTimeout, boolean epoll) {
    this.service = requireNonNull(service, "service is null");
    this.maxBodyBytes = maxBodyBytes;
    this.stopTimeout = requireNonNull(stopTimeout, "stopTimeout is null");
    if (epoll && !Epoll.isAvailable()) {
      throw new IllegalStateException("Netty's epoll transport is not available here");
    }
    this.epoll = epoll;
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    this.loops =
        epoll
            ? new EpollEventLoopGroup(threads, daemons("io"))
            : new NioEventLoopGroup(threads, daemons("io"));
    this.workers =
        new ThreadPoolExecutor(
            0, MAX_WORKERS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), daemons("worker"));
  }

  private static java.util.concurrent.ThreadFactory daemons(String role) {
    AtomicInteger counter = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, "lakestream-http-" + role + "-" + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Binds and starts accepting; throws when the address cannot be bound. */
  void start(String host, int port) throws InterruptedException {
    listening =
        new ServerBootstrap()
            .group(loops)
            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    connections.add(channel);
                    channel
                        .pipeline()
                        .addLast(
                            new IdleStateHandler(0, 0, IDLE_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                        .addLast(
                            new HttpServerCodec(
                                MAX_INITIAL_LINE_BYTES, MAX_HEADER_BYTES, 64 * 1024, false))
                        .addLast(new HttpServerExpectContinueHandler())
                        .addLast(new Connection());
                  }
                })
            .bind(host, port)
            .sync()
            .channel();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) listening.localAddress();
  }

  /**
   * Stops accepting, lets running requests finish (up to the stop timeout), then closes every
   * connection and releases the port.
   */
  @Override
  public void close() {
    Channel channel = listening;
    if (channel != null) {
      channel.close().syncUninterruptibly();
    }
    long deadline = System.nanoTime() + stopTimeout.toNanos();
    synchronized (idle) {
      try {
        for (long left = stopTimeout.toNanos();
            running.get() > 0 && left > 0;
            left = deadline - System.nanoTime()) {
          TimeUnit.NANOSECONDS.timedWait(idle, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (running.get() > 0) {
      LOG.warn("Stopping with {} HTTP requests still running", running.get());
    }
    connections.close().syncUninterruptibly();
    workers.shutdown();
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    directBodies.close();
  }

  /**
   * One connection: gathers a request's head and body into a {@link Call}, queues calls, and runs
   * them one at a time. Every field is touched on the connection's event loop only.
   */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    private HttpRequest head;
    private ByteArrayOutputStream body;
    private boolean tooLarge;
    private long discarded;
    private boolean busy;
    private boolean closing;

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
      try {
        if (closing) {
          return;
        }
        if (message instanceof HttpRequest request) {
          if (request.decoderResult().isFailure()) {
            refuseAndClose(context, request.decoderResult().cause(), request.protocolVersion());
            return;
          }
          head = request;
          long declared = HttpUtil.getContentLength(request, -1L);
          tooLarge = declared > maxBodyBytes;
          // Sized for the declared body, but a declaration alone reserves at most 64 KiB.
          body =
              tooLarge
                  ? null
                  : new ByteArrayOutputStream((int) Math.clamp(declared, 0, INITIAL_BODY_BYTES));
          discarded = 0;
        }
        if (message instanceof HttpContent content && head != null) {
          if (content.decoderResult().isFailure()) {
            refuseAndClose(context, content.decoderResult().cause(), head.protocolVersion());
            return;
          }
          gather(content.content());
          if (discarded > MAX_DISCARDED_BYTES) {
            enqueue(context, head, true);
            closing = true;
            head = null;
            return;
          }
          if (content instanceof LastHttpContent) {
            enqueue(context, head, HttpUtil.isKeepAlive(head));
            head = null;
          }
        }
      } finally {
        io.netty.util.ReferenceCountUtil.release(message);
      }
    }

    private void gather(ByteBuf bytes) {
      int readable = bytes.readableBytes();
      if (!tooLarge && body.size() + (long) readable > maxBodyBytes) {
        tooLarge = true;
        discarded = body.size();
        body = null;
      }
      if (tooLarge) {
        discarded += readable;
      } else {
        byte[] chunk = new byte[readable];
        bytes.readBytes(chunk);
        body.writeBytes(chunk);
      }
    }

    private void enqueue(ChannelHandlerContext context, HttpRequest request, boolean keepAlive) {
      String uri = request.uri();
      int scheme = uri.indexOf("://");
      if (scheme > 0 && !uri.startsWith("/")) { // absolute-form request target
        int slash = uri.indexOf('/', scheme + 3);
        uri = slash < 0 ? "/" : uri.substring(slash);
      }
      int question = uri.indexOf('?');
      Map<String, String> headers = new HashMap<>();
      for (Map.Entry<String, String> header : request.headers()) {
        headers.putIfAbsent(header.getKey().toLowerCase(Locale.ROOT), header.getValue());
      }
      Call call =
          new Call(
              request.method().name(),
              question < 0 ? uri : uri.substring(0, question),
              question < 0 ? null : uri.substring(question + 1),
              headers,
              tooLarge ? new byte[0] : body.toByteArray(),
              tooLarge);
      body = null;
      queue.add(new Queued(call, request.protocolVersion(), keepAlive && !tooLarge));
      if (queue.size() >= MAX_QUEUED) {
        context.channel().config().setAutoRead(false);
      }
      runNext(context);
    }

    private void runNext(ChannelHandlerContext context) {
      if (busy || queue.isEmpty()) {
        return;
      }
      Queued next = queue.poll();
      if (queue.size() < MAX_QUEUED && !closing) {
        context.channel().config().setAutoRead(true);
      }
      busy = true;
      running.incrementAndGet();
      Answer now = answerWithoutWaiting(next.call());
      if (now != null) {
        respond(context, next, now);
        return;
      }
      try {
        workers.execute(() -> respond(context, next, answer(next.call())));
      } catch (RejectedExecutionException e) {
        respond(
            context, next, service.refuse(503, "The server is at its limit of running requests"));
      }
    }

    private Answer answerWithoutWaiting(Call call) {
      try {
        return service.answerWithoutWaiting(call);
      } catch (RuntimeException e) {
        return null;
      }
    }

    private Answer answer(Call call) {
      try {
        return service.answer(call);
      } catch (RuntimeException | Error e) {
        LOG.error("Unanswered HTTP {} {}", call.method(), call.path(), e);
        return service.refuse(500, "Internal error");
      }
    }

    /** Writes an answer (from any thread) and, once written, runs the connection's next call. */
    private void respond(ChannelHandlerContext context, Queued queued, Answer answer) {
      FullHttpResponse response = response(queued.version(), answer);
      HttpUtil.setKeepAlive(response, queued.keepAlive());
      context
          .writeAndFlush(response)
          .addListener(
              written -> {
                finished();
                busy = false;
                if (!queued.keepAlive() || !written.isSuccess() || closing) {
                  closing = true;
                  context.close();
                } else {
                  runNext(context);
                }
              });
    }

    private void refuseAndClose(ChannelHandlerContext context, Throwable cause, HttpVersion v) {
      closing = true;
      head = null;
      body = null;
      int status =
          cause instanceof TooLongHttpLineException
              ? 414
              : cause instanceof TooLongHttpHeaderException
                  ? 431
                  : cause instanceof TooLongFrameException ? 413 : 400;
      String reason =
          switch (status) {
            case 414 -> "Request line longer than " + MAX_INITIAL_LINE_BYTES + " bytes";
            case 431 -> "Request headers longer than " + MAX_HEADER_BYTES + " bytes";
            default -> "Malformed HTTP request: " + cause.getMessage();
          };
      Queued refusal = new Queued(null, v, false);
      queue.clear();
      if (busy) { // the running call's answer closes the connection once written
        return;
      }
      busy = true;
      running.incrementAndGet();
      respond(context, refusal, service.refuse(status, reason));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
      if (event instanceof IdleStateEvent && !busy && head == null) {
        context.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
      LOG.debug("HTTP connection failed", cause);
      context.close();
    }
  }

  private void finished() {
    if (running.decrementAndGet() == 0) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  private FullHttpResponse response(HttpVersion version, Answer answer) {
    ByteBuf content =
        answer.body().length == 0
            ? Unpooled.EMPTY_BUFFER
            : answer.reusedBody() && answer.body().length >= MIN_DIRECT_BODY_BYTES
                ? directBodies.retainedCopy(answer.body())
                : Unpooled.wrappedBuffer(answer.body());
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            version.equals(HttpVersion.HTTP_1_0) ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(answer.status()),
            content);
    answer.headers().forEach((name, value) -> response.headers().set(name, value));
    if (answer.status() != 204 && answer.status() != 304) {
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
    }
    return response;
  }

  private record Queued(Call call, HttpVersion version, boolean keepAlive) {}
}
