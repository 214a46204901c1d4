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
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>What a client can make the server hold is bounded ({@link HttpLimits}): a request with a body
 * is first screened on its head ({@link Service#screen}, for example authenticated), so a refused
 * one is answered at once and its body never held; a declared body over the size limit gets 413 at
 * once; a request must arrive whole within the request timeout; the bodies of all connections'
 * unanswered requests share one budget, and a body that would exceed it gets 503; and one client
 * address may hold only so many connections. A refused request's body is read and dropped (up to
 * {@value #MAX_DISCARDED_BYTES} bytes) before the connection is closed, so a client still sending
 * it reads the answer rather than a connection reset. A chunked body that grows over the size limit
 * is dropped as it arrives and answered with 413 at its end. Malformed requests, request lines and
 * headers that are too long are answered by the service's {@link Service#refuse} and the connection
 * is closed.
 */
final class HttpTransport implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);
  private static final int MAX_INITIAL_LINE_BYTES = 16 * 1024;
  private static final int MAX_HEADER_BYTES = 16 * 1024;
  private static final int MAX_QUEUED = 16;
  private static final long MAX_DISCARDED_BYTES = 8L * 1024 * 1024;
  private static final int INITIAL_BODY_BYTES = 64 * 1024;
  private static final int MAX_WORKERS = 256;
  private static final String RETRY_AFTER_SECONDS = "1";
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

  /**
   * What a service decides on a request's head, before its body is read.
   *
   * @param refusal the answer that refuses the request, or null to read its body and serve it
   */
  record Verdict(Answer refusal) {
    static final Verdict ADMIT = new Verdict(null);
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
     * Decides on a request's head (its {@link Call} has an empty body) whether its body is worth
     * reading: a refusal is sent at once and the body is dropped. Runs on a worker thread and may
     * block; the connection is not read meanwhile. Asked only of requests that have a body.
     */
    default Verdict screen(Call head) {
      return Verdict.ADMIT;
    }

    /**
     * {@link #screen} on the connection's event loop, if it can be decided without waiting; null
     * hands it to {@link #screen} on a worker.
     */
    default Verdict screenWithoutWaiting(Call head) {
      return null;
    }

    /**
     * Answers what could not be read or served as a request: {@code status} is 400, 408, 413, 414,
     * 431, 500 or 503 and {@code reason} says why.
     */
    Answer refuse(int status, String reason);
  }

  private final Service service;
  private final long maxBodyBytes;
  private final Duration requestTimeout;
  // Saturated, so that a timeout of centuries cannot overflow.
  private final long requestTimeoutNanos;
  private final int maxConnectionsPerAddress;
  private final BodyBudget budget;
  private final Map<InetAddress, Integer> connectionsPerAddress = new ConcurrentHashMap<>();
  private final Duration stopTimeout;
  private final EventLoopGroup loops;
  private final ThreadPoolExecutor workers;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final DirectBodyCache directBodies = new DirectBodyCache(DIRECT_BODY_BUDGET_BYTES);
  private final Object idle = new Object();
  private final AtomicInteger running = new AtomicInteger();
  private final boolean epoll;
  private volatile Channel listening;

  /** A transport with default limits but the body size (for tests). */
  HttpTransport(Service service, long maxBodyBytes, Duration stopTimeout) {
    this(service, HttpLimits.withMaxRequestBytes(maxBodyBytes), stopTimeout, Epoll.isAvailable());
  }

  HttpTransport(Service service, long maxBodyBytes, Duration stopTimeout, boolean epoll) {
    this(service, HttpLimits.withMaxRequestBytes(maxBodyBytes), stopTimeout, epoll);
  }

  /** A transport on Netty's epoll transport where it is available, NIO elsewhere. */
  HttpTransport(Service service, HttpLimits limits, Duration stopTimeout) {
    this(service, limits, stopTimeout, Epoll.isAvailable());
  }

  /**
   * @param epoll whether to use Netty's epoll transport (it must be available) rather than NIO
   */
  HttpTransport(Service service, HttpLimits limits, Duration stopTimeout, boolean epoll) {
    this.service = requireNonNull(service, "service is null");
    requireNonNull(limits, "limits is null");
    this.maxBodyBytes = limits.maxRequestBytes();
    this.requestTimeout = limits.requestTimeout();
    this.requestTimeoutNanos = TimeUnit.NANOSECONDS.convert(requestTimeout);
    this.maxConnectionsPerAddress = limits.maxConnectionsPerAddress();
    // Never more than a quarter of the heap, whatever is configured.
    this.budget =
        new BodyBudget(
            Math.min(limits.maxBufferedRequestBytes(), Runtime.getRuntime().maxMemory() / 4));
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
                    if (!admitted(channel)) {
                      return;
                    }
                    connections.add(channel);
                    Connection connection = new Connection();
                    channel
                        .pipeline()
                        .addLast(
                            new IdleStateHandler(0, 0, IDLE_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                        .addLast(new ReadClock(connection))
                        .addLast(
                            new HttpServerCodec(
                                MAX_INITIAL_LINE_BYTES, MAX_HEADER_BYTES, 64 * 1024, false))
                        .addLast(connection);
                  }
                })
            .bind(host, port)
            .sync()
            .channel();
  }

  /**
   * Counts a new connection against its client address, or closes it when the address already holds
   * its limit of connections.
   */
  private boolean admitted(SocketChannel channel) {
    InetSocketAddress remote = channel.remoteAddress();
    if (remote == null) {
      return true;
    }
    InetAddress address = remote.getAddress();
    boolean[] admitted = new boolean[1];
    connectionsPerAddress.compute(
        address,
        (key, open) -> {
          int count = open == null ? 0 : open;
          admitted[0] = count < maxConnectionsPerAddress;
          return admitted[0] ? count + 1 : open;
        });
    if (!admitted[0]) {
      LOG.debug(
          "Refused an HTTP connection from {}: it holds {} connections already",
          address,
          maxConnectionsPerAddress);
      channel.close();
      return false;
    }
    channel
        .closeFuture()
        .addListener(
            closed ->
                connectionsPerAddress.computeIfPresent(
                    address, (key, open) -> open <= 1 ? null : open - 1));
    return true;
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
   * One connection: screens each request on its head, gathers its body into a {@link Call} within
   * the shared {@link BodyBudget}, queues calls, and runs them one at a time. Every field is
   * touched on the connection's event loop only.
   *
   * <p>A request is timed from its first byte to its last. A request refused on its head (401, 413,
   * 503) is answered at once; its body is then read and dropped (up to {@value
   * #MAX_DISCARDED_BYTES} bytes, within the request timeout) so that a client still sending it
   * reads the answer rather than a connection reset, and the connection is closed.
   */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    // Messages decoded while a worker screens a head; replayed in order once it has decided.
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private ChannelHandlerContext context;
    private HttpRequest head;
    private long declared;
    private byte[] body;
    private int size;
    private long reserved;
    private boolean tooLarge;
    private long discarded;
    private boolean screening;
    private boolean draining;
    private boolean busy;
    private boolean closing;
    private long requestStarted = -1;
    private boolean clockArmed;

    @Override
    public void handlerAdded(ChannelHandlerContext added) {
      context = added;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
      if (screening) {
        held.add(message);
        return;
      }
      try {
        read(context, message);
      } finally {
        ReferenceCountUtil.release(message);
      }
    }

    private void read(ChannelHandlerContext context, Object message) {
      if (message instanceof HttpRequest request) {
        if (closing) {
          return;
        }
        if (request.decoderResult().isFailure()) {
          refuseAndClose(context, request.decoderResult().cause(), request.protocolVersion());
          return;
        }
        startClock();
        begin(context, request);
      }
      if (message instanceof HttpContent content) {
        if (draining) {
          drain(context, content);
          return;
        }
        if (closing || head == null) {
          return;
        }
        if (content.decoderResult().isFailure()) {
          refuseAndClose(context, content.decoderResult().cause(), head.protocolVersion());
          return;
        }
        gather(context, content.content());
        if (draining) { // refused for want of budget
          if (content instanceof LastHttpContent) {
            finishDraining(context);
          }
          return;
        }
        if (discarded > MAX_DISCARDED_BYTES) {
          stopClock();
          enqueue(context, head, true);
          closing = true;
          head = null;
          return;
        }
        if (content instanceof LastHttpContent) {
          stopClock();
          enqueue(context, head, HttpUtil.isKeepAlive(head));
          head = null;
        }
      }
    }

    /** Takes a request's head: refuses it at once, screens it, or waits for its body. */
    private void begin(ChannelHandlerContext context, HttpRequest request) {
      head = request;
      tooLarge = false;
      discarded = 0;
      freeBody();
      declared = HttpUtil.getContentLength(request, -1L);
      if (declared > maxBodyBytes) {
        refuseHead(
            context,
            request,
            service.refuse(
                413,
                "Request body of "
                    + declared
                    + " bytes exceeds the limit of "
                    + maxBodyBytes
                    + " bytes"));
        return;
      }
      if (declared <= 0 && !HttpUtil.isTransferEncodingChunked(request)) {
        return; // no body to hold: the whole call is screened by the service itself
      }
      Call headOnly = call(request, new byte[0], false);
      Verdict verdict = screenWithoutWaiting(headOnly);
      if (verdict != null) {
        if (verdict.refusal() != null) {
          refuseHead(context, request, verdict.refusal());
        } else {
          continueIfExpected(context, request);
        }
        return;
      }
      screening = true;
      updateReading(context);
      try {
        workers.execute(
            () -> {
              Verdict decided = screen(headOnly);
              try {
                context.executor().execute(() -> screened(context, request, decided));
              } catch (RejectedExecutionException e) {
                // The transport is stopping; the connection is closed with it.
              }
            });
      } catch (RejectedExecutionException e) {
        screening = false;
        refuseHead(context, request, serverBusy("The server is at its limit of running requests"));
        updateReading(context);
      }
    }

    /** Continues with a request once a worker screened its head, then with what was held. */
    private void screened(ChannelHandlerContext context, HttpRequest request, Verdict verdict) {
      screening = false;
      if (!context.channel().isActive()) {
        releaseHeld();
        return;
      }
      if (verdict.refusal() != null && head == request) {
        refuseHead(context, request, verdict.refusal());
      } else if (head == request) {
        continueIfExpected(context, request);
      }
      while (!screening && !held.isEmpty()) {
        Object message = held.poll();
        try {
          read(context, message);
        } finally {
          ReferenceCountUtil.release(message);
        }
      }
      updateReading(context);
    }

    /**
     * Invites the body of a request whose head passed screening, when its client waits for that
     * ({@code Expect: 100-continue}): only now, so that a request refused on its head (401, 413)
     * gets its refusal instead of an invitation to send a body that would be dropped.
     */
    private void continueIfExpected(ChannelHandlerContext context, HttpRequest request) {
      if (HttpUtil.is100ContinueExpected(request)) {
        HttpUtil.set100ContinueExpected(request, false);
        context.writeAndFlush(
            new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
      }
    }

    private Verdict screenWithoutWaiting(Call headOnly) {
      try {
        return service.screenWithoutWaiting(headOnly);
      } catch (RuntimeException e) {
        return null;
      }
    }

    private Verdict screen(Call headOnly) {
      try {
        return requireNonNull(service.screen(headOnly), "verdict is null");
      } catch (RuntimeException | Error e) {
        LOG.error("Unscreened HTTP {} {}", headOnly.method(), headOnly.path(), e);
        return new Verdict(service.refuse(500, "Internal error"));
      }
    }

    /**
     * Answers a request on its head (in its turn among the connection's requests) and drops its
     * body; the connection is closed once both are done.
     */
    private void refuseHead(ChannelHandlerContext context, HttpRequest request, Answer refusal) {
      head = null;
      freeBody();
      draining = true;
      closing = true;
      discarded = 0;
      queue.add(new Queued(null, request.protocolVersion(), false, 0, refusal));
      runNext(context);
      updateReading(context);
    }

    private void drain(ChannelHandlerContext context, HttpContent content) {
      discarded += content.content().readableBytes();
      if (content instanceof LastHttpContent || discarded > MAX_DISCARDED_BYTES) {
        finishDraining(context);
      }
    }

    private void finishDraining(ChannelHandlerContext context) {
      draining = false;
      stopClock();
      if (!busy && queue.isEmpty()) {
        context.close();
      } else {
        updateReading(context);
      }
    }

    /** Adds body bytes to the request's buffer, which grows within the shared budget. */
    private void gather(ChannelHandlerContext context, ByteBuf bytes) {
      int readable = bytes.readableBytes();
      if (readable == 0) {
        return;
      }
      if (!tooLarge && size + (long) readable > maxBodyBytes) {
        tooLarge = true;
        discarded = size;
        freeBody();
      }
      if (tooLarge) {
        discarded += readable;
        return;
      }
      int needed = size + readable;
      if (body == null || needed > body.length) {
        long cap = declared > 0 ? declared : maxBodyBytes;
        long doubled = body == null ? INITIAL_BODY_BYTES : 2L * body.length;
        int length = (int) Math.max(needed, Math.min(cap, doubled));
        if (!budget.tryReserve(length)) {
          refuseHead(
              context,
              head,
              serverBusy(
                  "Unfinished request bodies hold the server's limit of "
                      + budget.limit()
                      + " bytes (http.max-buffered-request-bytes); retry later"));
          return;
        }
        byte[] grown = new byte[length];
        if (body != null) {
          System.arraycopy(body, 0, grown, 0, size);
        }
        budget.release(reserved);
        reserved = length;
        body = grown;
      }
      bytes.readBytes(body, size, readable);
      size = needed;
    }

    private void freeBody() {
      budget.release(reserved);
      reserved = 0;
      body = null;
      size = 0;
    }

    private Answer serverBusy(String reason) {
      return withHeader(service.refuse(503, reason), "Retry-After", RETRY_AFTER_SECONDS);
    }

    private void enqueue(ChannelHandlerContext context, HttpRequest request, boolean keepAlive) {
      byte[] bytes =
          tooLarge || body == null
              ? new byte[0]
              : size == body.length ? body : Arrays.copyOf(body, size);
      Call call = call(request, bytes, tooLarge);
      long held = reserved;
      reserved = 0;
      body = null;
      size = 0;
      queue.add(new Queued(call, request.protocolVersion(), keepAlive && !tooLarge, held, null));
      updateReading(context);
      runNext(context);
    }

    private void runNext(ChannelHandlerContext context) {
      if (busy || queue.isEmpty()) {
        return;
      }
      Queued next = queue.poll();
      updateReading(context);
      busy = true;
      running.incrementAndGet();
      if (next.answer() != null) {
        respond(context, next, next.answer());
        return;
      }
      Answer now = answerWithoutWaiting(next.call());
      if (now != null) {
        respond(context, next, now);
        return;
      }
      try {
        workers.execute(() -> respond(context, next, answer(next.call())));
      } catch (RejectedExecutionException e) {
        respond(context, next, serverBusy("The server is at its limit of running requests"));
      }
    }

    /**
     * Reads while a request is being gathered or a refused body drained; stops while a head is
     * screened, when {@value #MAX_QUEUED} calls wait, or once the connection is closing.
     */
    private void updateReading(ChannelHandlerContext context) {
      boolean read = draining || (!closing && !screening && queue.size() < MAX_QUEUED);
      if (context.channel().config().isAutoRead() != read) {
        context.channel().config().setAutoRead(read);
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
                budget.release(queued.reserved());
                busy = false;
                if (!written.isSuccess()) {
                  closing = true;
                  context.close();
                } else if (!queued.keepAlive()) {
                  closing = true;
                  if (!draining) {
                    context.close();
                  }
                } else if (!queue.isEmpty()) {
                  runNext(context);
                } else if (closing) {
                  if (!draining) {
                    context.close();
                  }
                }
              });
    }

    private void refuseAndClose(ChannelHandlerContext context, Throwable cause, HttpVersion v) {
      closing = true;
      head = null;
      freeBody();
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
      releaseQueue();
      if (busy) { // the running call's answer closes the connection once written
        return;
      }
      queue.add(new Queued(null, v, false, 0, service.refuse(status, reason)));
      runNext(context);
    }

    /** Called for every read from the socket, before it is decoded. */
    void bytesArrived() {
      if (!closing || draining) {
        startClock();
      }
    }

    private void startClock() {
      if (requestStarted < 0) {
        requestStarted = System.nanoTime();
        if (!clockArmed) {
          arm(requestTimeoutNanos);
        }
      }
    }

    private void stopClock() {
      requestStarted = -1; // an armed check finds nothing to time and lapses
    }

    private void arm(long delayNanos) {
      clockArmed = true;
      context.executor().schedule(this::checkClock, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkClock() {
      clockArmed = false;
      if (requestStarted < 0 || !context.channel().isActive()) {
        return;
      }
      if (!closing && (busy || !queue.isEmpty() || !context.channel().config().isAutoRead())) {
        // The server is still answering earlier requests of this connection, or not reading it
        // for backpressure: the client's next request is not late.
        requestStarted = System.nanoTime();
        arm(requestTimeoutNanos);
        return;
      }
      long left = requestTimeoutNanos - (System.nanoTime() - requestStarted);
      if (left > 0) {
        arm(left);
        return;
      }
      LOG.debug(
          "Closing HTTP connection {}: request not complete within {}",
          context.channel().remoteAddress(),
          requestTimeout);
      requestStarted = -1;
      if (closing) {
        draining = false;
        context.close();
        return;
      }
      HttpVersion version = head == null ? HttpVersion.HTTP_1_1 : head.protocolVersion();
      closing = true;
      head = null;
      freeBody();
      queue.add(
          new Queued(
              null,
              version,
              false,
              0,
              service.refuse(408, "Request not complete within " + requestTimeout)));
      runNext(context);
      updateReading(context);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
      if (event instanceof IdleStateEvent && !busy && head == null) {
        context.close();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
      freeBody();
      releaseQueue();
      releaseHeld();
      context.fireChannelInactive();
    }

    private void releaseQueue() {
      for (Queued queued : queue) {
        budget.release(queued.reserved());
      }
      queue.clear();
    }

    private void releaseHeld() {
      for (Object message : held) {
        ReferenceCountUtil.release(message);
      }
      held.clear();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
      LOG.debug("HTTP connection failed", cause);
      context.close();
    }
  }

  /** Notes each read from the socket for the connection's request clock. */
  private static final class ReadClock extends ChannelInboundHandlerAdapter {
    private final Connection connection;

    ReadClock(Connection connection) {
      this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
      connection.bytesArrived();
      context.fireChannelRead(message);
    }
  }

  private static Call call(HttpRequest request, byte[] body, boolean bodyTooLarge) {
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
    return new Call(
        request.method().name(),
        question < 0 ? uri : uri.substring(0, question),
        question < 0 ? null : uri.substring(question + 1),
        headers,
        body,
        bodyTooLarge);
  }

  private static Answer withHeader(Answer answer, String name, String value) {
    Map<String, String> headers = new HashMap<>(answer.headers());
    headers.put(name, value);
    return new Answer(answer.status(), headers, answer.body(), answer.reusedBody());
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

  /**
   * A call waiting for its turn on a connection, or (with an {@code answer} and no call) a refusal
   * decided on a request's head.
   *
   * @param reserved bytes of the {@link BodyBudget} the call's body holds until it is answered
   */
  private record Queued(
      Call call, HttpVersion version, boolean keepAlive, long reserved, Answer answer) {}
}
