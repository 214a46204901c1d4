package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The load client against a scripted server: each accepted connection answers its requests with the
 * given responses in turn, written in small pieces so that lines and bodies straddle reads.
 */
class KeepAliveHttpGetTest {
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();

  @AfterEach
  void closeResources() throws Exception {
    for (AutoCloseable resource : resources.reversed()) {
      resource.close();
    }
  }

  @Test
  void readsBodiesByLengthAndChunksOnOneConnection() throws Exception {
    String body = "x".repeat(100_000);
    String chunked =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\nContent-Type: application/json\r\n\r\n"
            + "5;name=value\r\nhello\r\n"
            + Integer.toHexString(body.length())
            + "\r\n"
            + body
            + "\r\n0\r\nTrailer: yes\r\n\r\n";
    URI uri =
        serve(
            List.of(
                "HTTP/1.1 200 OK\r\ncontent-length:  3 \r\nETag: \"a\"\r\n\r\nabc",
                chunked,
                "HTTP/1.1 404 Not Found\r\nCONTENT-LENGTH: " + body.length() + "\r\n\r\n" + body,
                "HTTP/1.1 304 Not Modified\r\nContent-Length: 0\r\n\r\n"));
    try (KeepAliveHttpGet client = new KeepAliveHttpGet(uri, 5_000)) {
      assertThat(client.send()).isEqualTo(new KeepAliveHttpGet.Response(200, 3));
      assertThat(client.send()).isEqualTo(new KeepAliveHttpGet.Response(200, 5 + body.length()));
      assertThat(client.send()).isEqualTo(new KeepAliveHttpGet.Response(404, body.length()));
      assertThat(client.send()).isEqualTo(new KeepAliveHttpGet.Response(304, 0));
    }
    assertThat(connections).hasValue(1);
  }

  @Test
  void reconnectsAfterTheServerClosesTheConnection() throws Exception {
    URI uri = serve(List.of("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"));
    try (KeepAliveHttpGet client = new KeepAliveHttpGet(uri, 5_000)) {
      assertThat(client.send()).isEqualTo(new KeepAliveHttpGet.Response(200, 2));
      assertThat(client.send()).isEqualTo(new KeepAliveHttpGet.Response(200, 2));
    }
    assertThat(connections).hasValue(2);
  }

  @Test
  void refusesResponsesItCannotRead() throws Exception {
    URI http10 = serve(List.of("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
    try (KeepAliveHttpGet client = new KeepAliveHttpGet(http10, 5_000)) {
      assertThatThrownBy(client::send)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("HTTP/1.0");
    }
    URI unsized = serve(List.of("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"));
    try (KeepAliveHttpGet client = new KeepAliveHttpGet(unsized, 5_000)) {
      assertThatThrownBy(client::send)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("no length");
    }
  }

  @Test
  void abortFailsARequestTheServerNeverAnswers() throws Exception {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    resources.add(server);
    java.util.concurrent.CountDownLatch requested = new java.util.concurrent.CountDownLatch(1);
    Thread silent =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try (Socket socket = server.accept()) {
                    readRequest(socket.getInputStream());
                    requested.countDown();
                    // Hold the connection open without answering until the client gives up.
                    socket.getInputStream().read();
                  } catch (IOException e) {
                    // The client went away.
                  }
                });
    resources.add(silent::interrupt);
    URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/t");
    try (KeepAliveHttpGet client = new KeepAliveHttpGet(uri, 5_000)) {
      Thread aborter =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      requested.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    client.abort();
                  });
      assertThatThrownBy(client::send).isInstanceOf(IOException.class);
      aborter.join();
    }
  }

  /**
   * Serves {@code responses} on every connection, one per request, then closes it; a response with
   * {@code Connection: close} closes it too.
   */
  private URI serve(List<String> responses) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    resources.add(server);
    Thread acceptor =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  while (!server.isClosed()) {
                    try (Socket socket = server.accept()) {
                      connections.incrementAndGet();
                      answer(socket, responses);
                    } catch (IOException e) {
                      // The test is over or the client went away.
                    }
                  }
                });
    resources.add(acceptor::interrupt);
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/t");
  }

  private static void answer(Socket socket, List<String> responses) throws IOException {
    InputStream in = socket.getInputStream();
    OutputStream out = socket.getOutputStream();
    for (String response : responses) {
      if (!readRequest(in)) {
        return;
      }
      byte[] bytes = response.getBytes(US_ASCII);
      for (int offset = 0; offset < bytes.length; offset += 7_001) {
        out.write(bytes, offset, Math.min(7_001, bytes.length - offset));
        out.flush();
      }
      if (response.contains("Connection: close")) {
        return;
      }
    }
  }

  /** Reads one request up to its empty line; false at the end of the stream. */
  private static boolean readRequest(InputStream in) throws IOException {
    int matched = 0;
    byte[] end = "\r\n\r\n".getBytes(US_ASCII);
    while (matched < end.length) {
      int c = in.read();
      if (c < 0) {
        return false;
      }
      matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
    }
    return true;
  }
}
