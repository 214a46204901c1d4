package io.lakestream.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.EmbeddedLakestream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/1.1 as clients speak it on the wire, against the real server: pipelined requests, HTTP/1.0
 * keep-alive, connection close, chunked bodies over the size limit, and request lines and headers
 * too long to read. Each refusal is an Iceberg {@code ErrorResponse}.
 */
class HttpTransportTest {
  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("http.max-request-size", "64kb"));
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws IOException {
    try (Socket socket = connect()) {
      send(
          socket,
          "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
              + "GET /v1/namespaces/absent HTTP/1.1\r\nHost: x\r\n\r\n"
              + "POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              + "Content-Length: 27\r\n\r\n{\"namespace\":[\"pipelined\"]}"
              + "GET /v1/namespaces/pipelined HTTP/1.1\r\nHost: x\r\n\r\n");
      InputStream in = socket.getInputStream();
      RawResponse health = RawResponse.read(in);
      RawResponse absent = RawResponse.read(in);
      RawResponse created = RawResponse.read(in);
      RawResponse loaded = RawResponse.read(in);
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.body()).contains("up");
      assertThat(absent.status()).isEqualTo(404);
      assertThat(absent.body()).contains("\"code\":404").contains("absent");
      assertThat(created.status()).as(created.body()).isEqualTo(200);
      assertThat(loaded.status()).as(loaded.body()).isEqualTo(200);
      assertThat(loaded.body()).contains("pipelined");
    }
  }

  @Test
  void http10KeepAliveKeepsTheConnectionAndCloseClosesIt() throws IOException {
    try (Socket socket = connect()) {
      InputStream in = socket.getInputStream();
      send(socket, "GET /v1/config HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
      RawResponse first = RawResponse.read(in);
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.header("connection")).isEqualToIgnoringCase("keep-alive");
      send(socket, "GET /v1/config HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      RawResponse second = RawResponse.read(in);
      assertThat(second.status()).isEqualTo(200);
      assertThat(second.body()).contains("endpoints");
      assertThat(in.read()).as("the server closes after Connection: close").isEqualTo(-1);
    }
  }

  @Test
  void chunkedBodyOverTheLimitIsReadAndRefusedWithoutAWrite() throws IOException {
    String name = "x".repeat(100_000);
    String body = "{\"namespace\":[\"" + name + "\"]}";
    try (Socket socket = connect()) {
      StringBuilder request =
          new StringBuilder(
              "POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + "Transfer-Encoding: chunked\r\n\r\n");
      for (int at = 0; at < body.length(); at += 8192) {
        String chunk = body.substring(at, Math.min(body.length(), at + 8192));
        request.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk);
        request.append("\r\n");
      }
      request.append("0\r\n\r\n");
      send(socket, request.toString());
      RawResponse refused = RawResponse.read(socket.getInputStream());
      assertThat(refused.status()).isEqualTo(413);
      assertThat(refused.body()).contains("\"code\":413").contains("65536");
    }
    try (Socket socket = connect()) {
      send(socket, "GET /v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n");
      RawResponse listed = RawResponse.read(socket.getInputStream());
      assertThat(listed.status()).isEqualTo(200);
      assertThat(listed.body()).doesNotContain("xxxx");
    }
  }

  @Test
  void overlongRequestLinesAndHeadersGetErrorResponses() throws IOException {
    try (Socket socket = connect()) {
      send(socket, "GET /v1/namespaces/" + "n".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
      RawResponse refused = RawResponse.read(socket.getInputStream());
      assertThat(refused.status()).isEqualTo(414);
      assertThat(refused.body()).contains("\"code\":414").contains("Request line longer");
    }
    try (Socket socket = connect()) {
      send(
          socket,
          "GET /v1/config HTTP/1.1\r\nHost: x\r\nX-Big: " + "h".repeat(20_000) + "\r\n\r\n");
      RawResponse refused = RawResponse.read(socket.getInputStream());
      assertThat(refused.status()).isEqualTo(431);
      assertThat(refused.body()).contains("\"code\":431").contains("headers longer");
    }
    try (Socket socket = connect()) {
      send(socket, "NOT A REQUEST\r\n\r\n");
      RawResponse refused = RawResponse.read(socket.getInputStream());
      assertThat(refused.status()).isEqualTo(400);
      assertThat(refused.body()).contains("\"code\":400");
    }
  }

  @Test
  void closeLetsARunningRequestFinish() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    HttpTransport.Service slow =
        new HttpTransport.Service() {
          @Override
          public HttpTransport.Answer answer(HttpTransport.Call call) {
            entered.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return new HttpTransport.Answer(
                200, Map.of("Content-Type", "text/plain"), "done".getBytes(StandardCharsets.UTF_8));
          }

          @Override
          public HttpTransport.Answer refuse(int status, String reason) {
            return new HttpTransport.Answer(
                status, Map.of(), reason.getBytes(StandardCharsets.UTF_8));
          }
        };
    HttpTransport transport = new HttpTransport(slow, 1024, Duration.ofSeconds(30));
    transport.start("127.0.0.1", 0);
    try (Socket socket = new Socket("127.0.0.1", transport.address().getPort())) {
      send(socket, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Void> closed = CompletableFuture.runAsync(transport::close);
      assertThat(closed).as("close waits for the running request").isNotDone();
      release.countDown();
      RawResponse answer = RawResponse.read(socket.getInputStream());
      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.body()).isEqualTo("done");
      closed.get(30, TimeUnit.SECONDS);
    }
    try (Socket refused = new Socket()) {
      assertThat(tryConnect(refused, transport.address().getPort()))
          .as("the port is released")
          .isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void bothNettyTransportsAnswerPipelinedAndReusedBodies(boolean epoll) throws Exception {
    Assumptions.assumeTrue(!epoll || io.netty.channel.epoll.Epoll.isAvailable());
    // Large enough to be kept off-heap between sends, and sent several times.
    byte[] reused = "x".repeat(20_000).getBytes(StandardCharsets.UTF_8);
    HttpTransport.Service service =
        new HttpTransport.Service() {
          @Override
          public HttpTransport.Answer answer(HttpTransport.Call call) {
            return call.path().equals("/big")
                ? new HttpTransport.Answer(200, Map.of("Content-Type", "text/plain"), reused, true)
                : new HttpTransport.Answer(
                    200,
                    Map.of("Content-Type", "text/plain"),
                    call.path().getBytes(StandardCharsets.UTF_8));
          }

          @Override
          public HttpTransport.Answer refuse(int status, String reason) {
            return new HttpTransport.Answer(
                status, Map.of(), reason.getBytes(StandardCharsets.UTF_8));
          }
        };
    HttpTransport transport = new HttpTransport(service, 1024, Duration.ofSeconds(30), epoll);
    transport.start("127.0.0.1", 0);
    try (Socket socket = new Socket("127.0.0.1", transport.address().getPort())) {
      socket.setSoTimeout(30_000);
      StringBuilder requests = new StringBuilder();
      for (int i = 0; i < 3; i++) {
        requests.append("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
        requests.append("GET /small-").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
      }
      send(socket, requests.toString());
      InputStream in = socket.getInputStream();
      for (int i = 0; i < 3; i++) {
        RawResponse big = RawResponse.read(in);
        assertThat(big.status()).isEqualTo(200);
        assertThat(big.body()).isEqualTo(new String(reused, StandardCharsets.UTF_8));
        RawResponse small = RawResponse.read(in);
        assertThat(small.status()).isEqualTo(200);
        assertThat(small.body()).isEqualTo("/small-" + i);
      }
    } finally {
      transport.close();
    }
  }

  private static boolean tryConnect(Socket socket, int port) {
    try {
      socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", lakestream.server().httpPort());
    socket.setSoTimeout(30_000);
    return socket;
  }

  private static void send(Socket socket, String request) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(request.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** One response read off the wire: status line, headers and a Content-Length body. */
  private record RawResponse(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    static RawResponse read(InputStream in) throws IOException {
      String statusLine = line(in);
      int status = Integer.parseInt(statusLine.split(" ")[1]);
      Map<String, String> headers = new HashMap<>();
      for (String line = line(in); !line.isEmpty(); line = line(in)) {
        int colon = line.indexOf(':');
        headers.put(
            line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
      byte[] body = in.readNBytes(length);
      assertThat(body).hasSize(length);
      return new RawResponse(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new IOException("Connection closed in a response head");
        }
        if (b != '\r') {
          line.write(b);
        }
      }
      return line.toString(StandardCharsets.UTF_8);
    }
  }
}
