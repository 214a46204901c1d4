package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.Connection;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.testing.PackagedServerExtension;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stream RPC front door against a real server process: a connection that sends part of a frame
 * is closed within the request timeout, and one client address holds at most its limit of
 * connections, while a normal client keeps working. Each test connects from its own loopback
 * address (127.0.0.x), apart from the server's own clients on 127.0.0.1.
 */
class RpcFrontDoorIT {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final int PER_ADDRESS = 8;
  private static final long BUFFERED_BUDGET = 16L << 20;

  @RegisterExtension
  static final PackagedServerExtension SERVER =
      PackagedServerExtension.builder()
          .flags(
              "--rpc-request-timeout", "2s",
              "--rpc-max-buffered-request-bytes", Long.toString(BUFFERED_BUDGET),
              "--rpc-max-connections-per-address", Integer.toString(PER_ADDRESS))
          .environment("LAKESTREAM_HEAP", "256m")
          .build();

  private static int rpcPort;

  @BeforeAll
  static void start() {
    rpcPort = SERVER.rpcPort();
  }

  @Test
  void partialFramesAreClosedWithinTheRequestTimeout() throws Exception {
    try (Socket twoBytes = connect("127.0.0.60")) {
      twoBytes.getOutputStream().write(new byte[] {0, 0});
      assertClosedWithin(twoBytes, REQUEST_TIMEOUT.plusSeconds(3));
    }
    try (Socket truncated = connect("127.0.0.60")) {
      ByteBuffer frame = ByteBuffer.allocate(4 + 20);
      frame.putInt(100); // announces 100 bytes, sends 20
      truncated.getOutputStream().write(frame.array());
      assertClosedWithin(truncated, REQUEST_TIMEOUT.plusSeconds(3));
    }
    assertClientWorks("after_partial_frames");
  }

  @Test
  void partlySentLargeFramesOfAllConnectionsStayWithinTheBudget() throws Exception {
    int connections = 24;
    int part = (2 << 20) - 1000; // 8 such parts fit the budget, the 9th does not
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < connections; i++) {
        sockets.add(connect("127.0.0." + (70 + i % 4)));
      }
      // Each declares a 32 MiB PRODUCE frame (allowed: under rpc.max-request-size) and sends part.
      for (int i = 0; i < connections; i++) {
        ByteBuffer frame = ByteBuffer.allocate(part);
        frame.putInt(32 << 20).putShort((short) 2).putShort((short) 1).putInt(1000 + i);
        try {
          sockets.get(i).getOutputStream().write(frame.array());
          sockets.get(i).getOutputStream().flush();
        } catch (IOException e) {
          // closed by the server; its answer is read below
        }
      }
      int refused = 0;
      for (int i = 0; i < connections; i++) {
        Socket socket = sockets.get(i);
        socket.setSoTimeout((int) REQUEST_TIMEOUT.plusSeconds(5).toMillis());
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length;
        try {
          length = in.readInt();
        } catch (java.io.EOFException | java.net.SocketException e) {
          continue; // held within the budget until the request timeout closed it
        }
        assertThat(length).isPositive();
        assertThat(in.readInt()).as("request id").isEqualTo(1000 + i);
        ErrorCode error = ErrorCode.forCode(in.readShort());
        String message = new String(in.readNBytes(in.readShort()), StandardCharsets.UTF_8);
        assertThat(error).as(message).isEqualTo(ErrorCode.SERVER_BUSY);
        assertThat(message).contains("rpc.max-buffered-request-bytes");
        assertThat(in.read()).as("nothing follows the refusal").isEqualTo(-1);
        refused++;
      }
      // At most 8 of the 24 fit; more may once the request timeout frees earlier ones.
      assertThat(refused).as("connections refused for want of budget").isGreaterThanOrEqualTo(8);
      assertClientWorks("after_buffered_frames");
    } finally {
      for (Socket socket : sockets) {
        socket.close();
      }
    }
    assertThat(SERVER.process().process().isAlive()).isTrue();
    assertClientWorks("after_buffered_frames_closed");
  }

  @Test
  void idleConnectionsBetweenFramesStayOpen() throws Exception {
    try (Socket idle = connect("127.0.0.61")) {
      idle.setSoTimeout((int) REQUEST_TIMEOUT.multipliedBy(2).toMillis());
      try {
        assertThat(idle.getInputStream().read())
            .as("closed without a partial frame")
            .isNotEqualTo(-1);
      } catch (SocketTimeoutException expected) {
        // still open: nothing was started, so nothing is late
      }
    }
  }

  @Test
  void oneAddressHoldsAtMostItsConnections() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < PER_ADDRESS; i++) {
        Socket socket = connect("127.0.0.62");
        sockets.add(socket);
        // Answered, so admitted: connections are counted in the order the server takes them.
        assertThat(unknownApiKeyRoundTrip(socket, i))
            .isEqualTo(ErrorCode.UNSUPPORTED_VERSION.code());
      }
      try (Socket extra = connect("127.0.0.62")) {
        assertClosedWithin(extra, Duration.ofSeconds(2));
      }
      for (Socket socket : sockets) {
        socket.setSoTimeout(100);
        try {
          assertThat(socket.getInputStream().read()).isNotEqualTo(-1);
        } catch (SocketTimeoutException expected) {
          // open, as it should be
        }
      }
      sockets.remove(0).close();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      boolean admitted = false;
      while (!admitted && System.nanoTime() < deadline) {
        Socket again = connect("127.0.0.62");
        again.setSoTimeout(300);
        try {
          admitted = again.getInputStream().read() != -1;
        } catch (SocketTimeoutException e) {
          admitted = true; // left open
        } catch (IOException e) {
          admitted = false;
        }
        sockets.add(again);
      }
      assertThat(admitted).as("a freed slot is usable again").isTrue();
    } finally {
      for (Socket socket : sockets) {
        socket.close();
      }
    }
    assertClientWorks("after_the_limit");
  }

  private static void assertClientWorks(String namespace) {
    try (Connection connection = Connection.open("127.0.0.1", rpcPort, null)) {
      connection.admin().createNamespace(null, List.of(namespace));
      assertThat(connection.admin().listTables(null, List.of(namespace))).isEmpty();
    }
  }

  private static void assertClosedWithin(Socket socket, Duration within) throws IOException {
    socket.setSoTimeout((int) within.toMillis());
    try {
      assertThat(socket.getInputStream().read()).as("nothing is answered").isEqualTo(-1);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("connection still open after " + within, e);
    } catch (IOException e) {
      // reset: closed as well
    }
  }

  /** Sends a frame of an API key the server does not know and returns its answer's error code. */
  private static short unknownApiKeyRoundTrip(Socket socket, int requestId) throws IOException {
    ByteBuffer frame = ByteBuffer.allocate(4 + 8);
    frame.putInt(8).putShort((short) 999).putShort((short) 0).putInt(requestId);
    socket.getOutputStream().write(frame.array());
    socket.setSoTimeout(10_000);
    DataInputStream in = new DataInputStream(socket.getInputStream());
    in.readInt(); // length
    assertThat(in.readInt()).as("request id").isEqualTo(requestId);
    short error = in.readShort();
    in.readNBytes(in.readShort()); // the message
    return error;
  }

  private static Socket connect(String from) throws IOException {
    Socket socket = new Socket();
    socket.bind(new InetSocketAddress(from, 0));
    socket.connect(new InetSocketAddress("127.0.0.1", rpcPort), 5000);
    return socket;
  }
}
