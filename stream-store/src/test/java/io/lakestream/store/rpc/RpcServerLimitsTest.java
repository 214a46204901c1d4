package io.lakestream.store.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RPC server's own limits, with a handler that refuses everything: partial frames are cut off
 * by the request timeout, whole frames are answered however slowly they trickle in within it, and
 * connections beyond the total limit are closed at once.
 */
class RpcServerLimitsTest {
  private static final Duration TIMEOUT = Duration.ofMillis(800);
  private static final int MAX_CONNECTIONS = 4;

  private RpcServer server;

  @BeforeEach
  void start() throws InterruptedException {
    RequestHandler refusing =
        (session, key, version, body) ->
            CompletableFuture.failedFuture(
                new RpcException(ErrorCode.INVALID_REQUEST, "refused " + key));
    server = new RpcServer(refusing, 1 << 20, 1 << 20, TIMEOUT, MAX_CONNECTIONS, 100);
    server.start("127.0.0.1", 0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aPartialFrameIsClosedAfterTheTimeoutAndAWholeOneAnswered() throws IOException {
    try (Socket partial = connect()) {
      partial.getOutputStream().write(new byte[] {0, 0, 0});
      long started = System.nanoTime();
      partial.setSoTimeout((int) TIMEOUT.multipliedBy(5).toMillis());
      assertThat(readOrReset(partial)).isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(TIMEOUT.minusMillis(100));
    }
    try (Socket whole = connect()) {
      assertThat(roundTrip(whole, 7)).isEqualTo(ErrorCode.INVALID_REQUEST.code());
    }
  }

  @Test
  void connectionsBeyondTheTotalLimitAreClosed() throws IOException {
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < MAX_CONNECTIONS; i++) {
        Socket socket = connect();
        open.add(socket);
        // Answered, so admitted: connections are counted in the order the server takes them.
        assertThat(roundTrip(socket, i)).isEqualTo(ErrorCode.INVALID_REQUEST.code());
      }
      try (Socket extra = connect()) {
        extra.setSoTimeout(2000);
        assertThat(readOrReset(extra)).isEqualTo(-1);
      }
      for (Socket socket : open) {
        socket.setSoTimeout(50);
        try {
          socket.getInputStream().read();
          throw new AssertionError("a connection within the limit was closed");
        } catch (SocketTimeoutException expected) {
          // open
        }
      }
      open.remove(0).close();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      boolean admitted = false;
      while (!admitted && System.nanoTime() < deadline) {
        Socket again = connect();
        open.add(again);
        again.setSoTimeout(200);
        try {
          again.getInputStream().read();
        } catch (SocketTimeoutException e) {
          admitted = true;
        } catch (IOException e) {
          // not yet counted off
        }
      }
      assertThat(admitted).isTrue();
    } finally {
      for (Socket socket : open) {
        socket.close();
      }
    }
  }

  /** Sends a whole frame in two writes and returns the error code of its answer. */
  private static short roundTrip(Socket socket, int requestId) throws IOException {
    ByteBuffer frame = ByteBuffer.allocate(4 + 8);
    frame.putInt(8).putShort(ApiKey.LIST_OFFSETS.id()).putShort((short) 0).putInt(requestId);
    byte[] bytes = frame.array();
    socket.getOutputStream().write(bytes, 0, 6);
    socket.getOutputStream().write(bytes, 6, bytes.length - 6);
    socket.setSoTimeout(5000);
    DataInputStream in = new DataInputStream(socket.getInputStream());
    in.readInt(); // length
    assertThat(in.readInt()).as("request id").isEqualTo(requestId);
    short error = in.readShort();
    in.readNBytes(in.readShort()); // the message
    return error;
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
    return socket;
  }

  private static int readOrReset(Socket socket) throws IOException {
    try {
      return socket.getInputStream().read();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("connection still open", e);
    } catch (IOException e) {
      return -1;
    }
  }
}
