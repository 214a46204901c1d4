package io.lakestream.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.CatalogTokens;
import io.lakestream.testing.PackagedServerExtension;
import io.lakestream.testing.RawHttpResponse;
import io.lakestream.testing.ServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The HTTP front door against a real server process with a small heap and OAuth2: clients that send
 * no token, declare huge bodies, send half a request, open many connections or trickle large bodies
 * with a valid token cannot hold the server's heap or connections. Each client connects from its
 * own loopback address (127.0.0.x) so the per-address limit of one test does not stand in another's
 * way.
 */
class HttpFrontDoorIT {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  private static final int PER_ADDRESS = 16;
  private static final int DECLARED = 16 << 20; // the default http.max-request-size: allowed

  @RegisterExtension
  static final PackagedServerExtension SERVER =
      PackagedServerExtension.builder()
          .flags(
              "--auth-mode", "oauth2",
              "--auth-token-signing-key", "front-door-signing-key-0123456789abcdef",
              "--auth-clients", "admin:admin-secret,reader:reader-secret,scraper:scraper-secret",
              "--auth-grants", "admin:admin:*,reader:read:default",
              "--auth-metrics-principals", "scraper",
              "--http-request-timeout", "5s",
              "--http-max-buffered-request-bytes", "32mb",
              "--http-max-connections-per-address", Integer.toString(PER_ADDRESS))
          .environment("LAKESTREAM_HEAP", "256m")
          .build();

  private static ServerProcess server;
  private static String admin;
  private static String reader;
  private static String scraper;

  @BeforeAll
  static void start() throws Exception {
    server = SERVER.process();
    admin = CatalogTokens.clientCredentials(server.baseUri(), "admin", "admin-secret");
    reader = CatalogTokens.clientCredentials(server.baseUri(), "reader", "reader-secret");
    scraper = CatalogTokens.clientCredentials(server.baseUri(), "scraper", "scraper-secret");
  }

  @Test
  void partialBodiesWithoutATokenGet401AtOnceAndTheServerLives() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    byte[] megabyte = new byte[1 << 20];
    try {
      for (int i = 0; i < 64; i++) {
        Socket socket = connect("127.0.0." + (10 + i / PER_ADDRESS));
        sockets.add(socket);
        socket.setSoTimeout(5000);
        OutputStream out = socket.getOutputStream();
        out.write(head("POST", "/v1/namespaces", null, DECLARED));
        out.write(megabyte);
        out.flush();
        RawHttpResponse refused = RawHttpResponse.read(socket.getInputStream());
        assertThat(refused.status()).as("connection %d: %s", i, refused.body()).isEqualTo(401);
        assertThat(refused.body()).contains("NotAuthorizedException");
        // Go on sending most of the declared body, as the attacker did; the server drops it.
        try {
          for (int sent = 1; sent < 15; sent++) {
            out.write(megabyte);
          }
          out.flush();
        } catch (IOException e) {
          // The server closed the connection once it had dropped enough.
        }
      }
      assertAlive();
    } finally {
      closeAll(sockets);
    }
    assertAlive();
  }

  @Test
  void expectContinueIsAnsweredOnlyAfterTheTokenIsChecked() throws Exception {
    String expect = "Expect: 100-continue\r\n\r\n";
    try (Socket socket = connect("127.0.0.22")) {
      socket.setSoTimeout(5000);
      byte[] head = head("POST", "/v1/namespaces", null, 1000);
      String withExpect = new String(head, 0, head.length - 2, StandardCharsets.UTF_8) + expect;
      socket.getOutputStream().write(withExpect.getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      // The body is not sent: a client that expects 100 waits for it (or for a refusal).
      RawHttpResponse refused = RawHttpResponse.read(socket.getInputStream());
      assertThat(refused.status()).as(refused.body()).isEqualTo(401);
      assertThat(refused.body()).contains("NotAuthorizedException");
    }
    // With a valid token: 100 Continue, and the request is then served.
    try (Socket socket = connect("127.0.0.22")) {
      socket.setSoTimeout(5000);
      byte[] body =
          "{\"namespace\":[\"expect_continue\"],\"properties\":{}}"
              .getBytes(StandardCharsets.UTF_8);
      byte[] head = head("POST", "/v1/namespaces", admin, body.length);
      String withExpect = new String(head, 0, head.length - 2, StandardCharsets.UTF_8) + expect;
      socket.getOutputStream().write(withExpect.getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      RawHttpResponse interim = RawHttpResponse.read(socket.getInputStream());
      assertThat(interim.status()).as(interim.body()).isEqualTo(100);
      socket.getOutputStream().write(body);
      socket.getOutputStream().flush();
      RawHttpResponse created = RawHttpResponse.read(socket.getInputStream());
      assertThat(created.status()).as(created.body()).isEqualTo(200);
    }
  }

  @Test
  void aDeclaredBodyOverTheLimitGets413WithoutBeingSent() throws Exception {
    for (String token : new String[] {null, admin}) {
      try (Socket socket = connect("127.0.0.20")) {
        socket.setSoTimeout(1000);
        long started = System.nanoTime();
        socket.getOutputStream().write(head("POST", "/v1/namespaces", token, DECLARED + 1));
        RawHttpResponse refused = RawHttpResponse.read(socket.getInputStream());
        assertThat(refused.status()).as(refused.body()).isEqualTo(413);
        assertThat(refused.body()).contains("RequestTooLarge").contains(Long.toString(DECLARED));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
      }
    }
  }

  @Test
  void partialRequestsAreClosedWithinTheRequestTimeout() throws Exception {
    // A body shorter than its Content-Length, with a valid token.
    try (Socket socket = connect("127.0.0.21")) {
      socket.getOutputStream().write(head("POST", "/v1/namespaces", admin, 100));
      socket.getOutputStream().write("{\"namesp".getBytes(StandardCharsets.UTF_8));
      String rest = readUntilClosed(socket, REQUEST_TIMEOUT.plusSeconds(4));
      assertThat(rest)
          .satisfiesAnyOf(
              r -> assertThat(r).isEmpty(), r -> assertThat(r).startsWith("HTTP/1.1 408"));
    }
    // Headers that never end.
    try (Socket socket = connect("127.0.0.21")) {
      socket
          .getOutputStream()
          .write("GET /v1/config HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.UTF_8));
      readUntilClosed(socket, REQUEST_TIMEOUT.plusSeconds(4));
    }
    // Headers that trickle in a byte at a time, each well within the idle timeout.
    try (Socket socket = connect("127.0.0.21")) {
      byte[] line = "GET /v1/config HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.UTF_8);
      socket.getOutputStream().write(line);
      long started = System.nanoTime();
      long deadline = started + REQUEST_TIMEOUT.plusSeconds(4).toNanos();
      boolean closed = false;
      while (!closed && System.nanoTime() < deadline) {
        try {
          socket.getOutputStream().write('a');
          socket.getOutputStream().flush();
        } catch (IOException e) {
          closed = true;
          break;
        }
        socket.setSoTimeout(250);
        try {
          closed = socket.getInputStream().read(new byte[4096]) != 0;
        } catch (SocketTimeoutException e) {
          // still open
        } catch (IOException e) {
          closed = true;
        }
      }
      assertThat(closed).as("a trickled request is cut off by the request timeout").isTrue();
    }
    assertAlive();
  }

  @Test
  void oneAddressHoldsAtMostItsConnections() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < PER_ADDRESS; i++) {
        Socket socket = connect("127.0.0.30");
        sockets.add(socket);
        socket.setSoTimeout(5000);
        socket.getOutputStream().write(head("GET", "/health", null, -1));
        assertThat(RawHttpResponse.read(socket.getInputStream()).status()).isEqualTo(200);
      }
      try (Socket extra = connect("127.0.0.30")) {
        extra.setSoTimeout(2000);
        try {
          extra.getOutputStream().write(head("GET", "/health", null, -1));
          assertThat(extra.getInputStream().read())
              .as("the extra connection is closed")
              .isEqualTo(-1);
        } catch (SocketTimeoutException e) {
          throw new AssertionError("connection beyond the per-address limit was left open", e);
        } catch (IOException e) {
          // reset: closed as well
        }
      }
      try (Socket other = connect("127.0.0.31")) {
        other.setSoTimeout(5000);
        other.getOutputStream().write(head("GET", "/health", null, -1));
        assertThat(RawHttpResponse.read(other.getInputStream()).status()).isEqualTo(200);
      }
      sockets.remove(0).close();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      int status = 0;
      while (status != 200 && System.nanoTime() < deadline) {
        try (Socket again = connect("127.0.0.30")) {
          again.setSoTimeout(2000);
          again.getOutputStream().write(head("GET", "/health", null, -1));
          status = RawHttpResponse.read(again.getInputStream()).status();
        } catch (IOException e) {
          status = 0; // the closed connection is not counted off yet
        }
      }
      assertThat(status).as("a freed slot is usable again").isEqualTo(200);
    } finally {
      closeAll(sockets);
    }
  }

  @Test
  void slowBodiesWithAValidTokenStayWithinTheBufferedBytes() throws Exception {
    int connections = 24;
    byte[] part = new byte[3 << 20];
    List<Socket> sockets = new ArrayList<>();
    List<CompletableFuture<RawHttpResponse>> answers = new ArrayList<>();
    try (ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor()) {
      try {
        for (int i = 0; i < connections; i++) {
          Socket socket = connect("127.0.0." + (40 + i / PER_ADDRESS));
          sockets.add(socket);
          socket.setSoTimeout(20_000);
          socket.getOutputStream().write(head("POST", "/v1/namespaces", admin, DECLARED));
          answers.add(CompletableFuture.supplyAsync(() -> readQuietly(socket), readers));
          socket.getOutputStream().write(part);
          socket.getOutputStream().flush();
        }
        int busy = 0;
        for (CompletableFuture<RawHttpResponse> answer : answers) {
          RawHttpResponse response = answer.get(30, TimeUnit.SECONDS);
          if (response != null && response.status() == 503) {
            assertThat(response.header("retry-after")).isNotNull();
            assertThat(response.body()).contains("http.max-buffered-request-bytes");
            busy++;
          } else if (response != null) {
            assertThat(response.status()).as(response.body()).isEqualTo(408);
          }
        }
        // 32 MiB hold the 4 MiB buffers of 8 of these bodies at most; the rest are refused.
        assertThat(busy).isGreaterThanOrEqualTo(connections - 8);
        assertAlive();
      } finally {
        closeAll(sockets);
      }
    }
    // Every refused and timed-out body gave its bytes back: a body of nearly half the budget is
    // read whole again (and refused as the malformed namespace it is, not for want of memory).
    try (Socket socket = connect("127.0.0.45")) {
      socket.setSoTimeout(10_000);
      byte[] body = new byte[15 << 20];
      java.util.Arrays.fill(body, (byte) ' ');
      socket.getOutputStream().write(head("POST", "/v1/namespaces", admin, body.length));
      socket.getOutputStream().write(body);
      RawHttpResponse read = RawHttpResponse.read(socket.getInputStream());
      assertThat(read.status()).as(read.body()).isEqualTo(400);
    }
    try (Socket socket = connect("127.0.0.45")) {
      socket.setSoTimeout(10_000);
      byte[] body = "{\"namespace\":[\"after_the_flood\"]}".getBytes(StandardCharsets.UTF_8);
      socket.getOutputStream().write(head("POST", "/v1/namespaces", admin, body.length));
      socket.getOutputStream().write(body);
      RawHttpResponse created = RawHttpResponse.read(socket.getInputStream());
      assertThat(created.status()).as(created.body()).isEqualTo(200);
    }
  }

  @Test
  void metricsNeedAGrant() throws Exception {
    assertThat(get("/metrics", null).status()).isEqualTo(401);
    RawHttpResponse forbidden = get("/metrics", reader);
    assertThat(forbidden.status()).as(forbidden.body()).isEqualTo(403);
    assertThat(forbidden.body()).contains("ForbiddenException").contains("reader");
    assertThat(get("/metrics", admin).status()).isEqualTo(200);
    assertThat(get("/metrics", scraper).status()).isEqualTo(200);
    assertThat(get("/health", null).status()).isEqualTo(200);
    assertThat(get("/ready", null).status()).isEqualTo(200);
  }

  private static RawHttpResponse get(String path, String token) throws IOException {
    try (Socket socket = connect("127.0.0.50")) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(head("GET", path, token, -1));
      return RawHttpResponse.read(socket.getInputStream());
    }
  }

  private static void assertAlive() throws IOException {
    assertThat(server.process().isAlive()).as("the server process is alive").isTrue();
    assertThat(get("/ready", null).status()).isEqualTo(200);
  }

  private static Socket connect(String from) throws IOException {
    Socket socket = new Socket();
    socket.bind(new InetSocketAddress(from, 0));
    socket.connect(new InetSocketAddress("127.0.0.1", server.httpPort()), 5000);
    return socket;
  }

  private static byte[] head(String method, String path, String token, long contentLength) {
    StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: x\r\n");
    if (token != null) {
      head.append("Authorization: Bearer ").append(token).append("\r\n");
    }
    if (contentLength >= 0) {
      head.append("Content-Type: application/json\r\nContent-Length: ")
          .append(contentLength)
          .append("\r\n");
    }
    return head.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Reads what the server sends until it closes the connection, failing past the deadline. */
  private static String readUntilClosed(Socket socket, Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    byte[] buffer = new byte[4096];
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("connection still open after " + within);
      }
      socket.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      int read;
      try {
        read = socket.getInputStream().read(buffer);
      } catch (SocketTimeoutException e) {
        throw new AssertionError("connection still open after " + within, e);
      } catch (IOException e) {
        return received.toString(StandardCharsets.UTF_8); // reset: closed
      }
      if (read < 0) {
        return received.toString(StandardCharsets.UTF_8);
      }
      received.write(buffer, 0, read);
    }
  }

  private static RawHttpResponse readQuietly(Socket socket) {
    try {
      return RawHttpResponse.read(socket.getInputStream());
    } catch (IOException e) {
      return null;
    }
  }

  private static void closeAll(List<Socket> sockets) {
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
