package io.lakestream.flight.server;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client connections of the Flight endpoint, and when each one goes away: its TCP connection
 * closes (the client process died, its socket was closed), or the client shuts its gRPC channel
 * down, which it announces with an HTTP/2 {@code GOAWAY}.
 *
 * <p>gRPC cancels a call when its connection closes, but not when the client only shuts its channel
 * down: calls already open then go on until they end. That is what Flight's {@code
 * FlightClient.close()} (and so the JDBC driver's and ADBC's {@code close()}) does while another
 * thread still waits for a query's rows; the client then never reads them (its memory is released
 * five seconds later) and never closes the connection while the call is open. The endpoint treats
 * such a connection as gone, so that the queries it started stop at once instead of computing until
 * {@code flight.query-timeout}.
 *
 * <p>How: {@link #serverChannel()} makes the listening channel, which puts a watcher at the head of
 * every accepted connection's pipeline; the watcher listens to the HTTP/2 connection of gRPC's
 * handler for a received {@code GOAWAY}, and to the channel's end. {@link #interceptor()} records,
 * for every call, its connection in the gRPC {@link Context}, where {@link #current()} finds it.
 *
 * <p>Thread safe.
 */
final class ClientConnections {
  private static final Logger LOG = LoggerFactory.getLogger(ClientConnections.class);

  private static final Context.Key<ClientConnection> CURRENT =
      Context.key("lakestream-flight-client-connection");

  /** A connection that never goes away: for calls whose connection is not known. */
  private static final ClientConnection UNKNOWN = new ClientConnection("unknown");

  // Open connections by the client's address, which names one TCP connection while it is open.
  private final Map<SocketAddress, ClientConnection> open = new ConcurrentHashMap<>();

  /** The listening channel: a NIO server socket that watches every connection it accepts. */
  NioServerSocketChannel serverChannel() {
    return new NioServerSocketChannel() {
      @Override
      protected int doReadMessages(List<Object> accepted) throws Exception {
        // The list holds what earlier calls of the same read accepted too: watch only the new.
        int before = accepted.size();
        int count = super.doReadMessages(accepted);
        for (Object child : accepted.subList(before, accepted.size())) {
          if (child instanceof Channel channel) {
            channel.pipeline().addFirst(new Watcher());
          }
        }
        return count;
      }
    };
  }

  /** Records each call's connection in its gRPC context (see {@link #current()}). */
  ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        SocketAddress client = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        ClientConnection connection = client == null ? null : open.get(client);
        ServerCall<Q, R> served = call;
        if (DO_GET.equals(call.getMethodDescriptor().getFullMethodName())) {
          served = new HeadersAtOnce<>(call);
        }
        return Contexts.interceptCall(
            Context.current().withValue(CURRENT, connection == null ? UNKNOWN : connection),
            served,
            headers,
            next);
      }
    };
  }

  private static final String DO_GET = "arrow.flight.protocol.FlightService/DoGet";

  /**
   * A {@code DoGet} call that answers its headers at once, before its query computes its first
   * batch, instead of with that batch. gRPC's Java client may retry a call until it has its
   * headers, and while a call may still be retried, shutting its channel down waits for the call
   * instead of announcing the shut-down ({@code GOAWAY}): a client closed while a query computed
   * (the JDBC driver's {@code Connection.close()}) would not be seen going away. Later headers
   * (gRPC sends them with the first message) are dropped: Flight's middleware added its own to
   * these.
   */
  private static final class HeadersAtOnce<Q, R>
      extends io.grpc.ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    private boolean sent;

    HeadersAtOnce(ServerCall<Q, R> call) {
      super(call);
      sendHeaders(new Metadata());
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!sent) {
        sent = true;
        super.sendHeaders(headers);
      }
    }
  }

  /** How many connections are open now. */
  int open() {
    return open.size();
  }

  /**
   * The connection of the Flight call being served on this thread; one that never goes away when
   * the call did not come through {@link #interceptor()}.
   */
  static ClientConnection current() {
    ClientConnection connection = CURRENT.get();
    return connection == null ? UNKNOWN : connection;
  }

  /** One client connection. */
  static final class ClientConnection {
    private final String client;
    private volatile boolean gone;

    private ClientConnection(String client) {
      this.client = client;
    }

    /** Whether the client went away: the connection closed, or the client shut its channel down. */
    boolean gone() {
      return gone;
    }

    private void markGone(String why) {
      if (!gone) {
        gone = true;
        LOG.debug("Flight client {} went away: {}", client, why);
      }
    }

    @Override
    public String toString() {
      return client + (gone ? " (gone)" : "");
    }
  }

  /**
   * Watches one accepted connection. Sits first in its pipeline, so it sees every read before
   * gRPC's HTTP/2 handler decodes it, and hooks onto that handler as soon as it is there (after the
   * TLS handshake, with TLS).
   */
  private final class Watcher extends ChannelInboundHandlerAdapter {
    private ClientConnection connection;
    private SocketAddress address;
    private boolean hooked;

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      address = ctx.channel().remoteAddress();
      connection = new ClientConnection(String.valueOf(address));
      if (address != null) {
        open.put(address, connection);
      }
      super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) throws Exception {
      if (!hooked && connection != null) {
        Http2ConnectionHandler http2 = ctx.pipeline().get(Http2ConnectionHandler.class);
        if (http2 != null) {
          hooked = true;
          ClientConnection watched = connection;
          http2
              .connection()
              .addListener(
                  new Http2ConnectionAdapter() {
                    @Override
                    public void onGoAwayReceived(int lastStreamId, long errorCode, ByteBuf debug) {
                      watched.markGone("it shut its channel down");
                    }
                  });
        }
      }
      super.channelRead(ctx, message);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      if (connection != null) {
        if (address != null) {
          open.remove(address, connection);
        }
        connection.markGone("its connection closed");
      }
      super.channelInactive(ctx);
    }
  }
}
