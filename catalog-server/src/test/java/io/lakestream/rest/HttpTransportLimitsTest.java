package io.lakestream.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.RawHttpResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transport's own limits with a hand-written service: refusals on the head keep the order of
 * pipelined answers, the shared body budget refuses with 503 and is given back by every answered,
 * refused and abandoned body, and a request that is not whole in time gets 408.
 */
class HttpTransportLimitsTest {
  private static final long BUDGET = 256 * 1024;
  // Long enough that a loaded machine serves the budget test's bodies within it.
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final AtomicInteger screenedOnWorkers = new AtomicInteger();
  private HttpTransport transport;

  @BeforeEach
  void start() throws InterruptedException {
    HttpTransport.Service service =
        new HttpTransport.Service() {
          @Override
          public HttpTransport.Answer answer(HttpTransport.Call call) {
            return text(200, call.path() + " " + call.body().length);
          }

          @Override
          public HttpTransport.Verdict screenWithoutWaiting(HttpTransport.Call head) {
            return head.path().equals("/worker")
                ? null
                : head.path().equals("/denied")
                    ? new HttpTransport.Verdict(text(401, "denied"))
                    : HttpTransport.Verdict.ADMIT;
          }

          @Override
          public HttpTransport.Verdict screen(HttpTransport.Call head) {
            screenedOnWorkers.incrementAndGet();
            return head.header("authorization") == null
                ? new HttpTransport.Verdict(text(401, "no token"))
                : HttpTransport.Verdict.ADMIT;
          }

          @Override
          public HttpTransport.Answer refuse(int status, String reason) {
            return text(status, reason);
          }
        };
    transport =
        new HttpTransport(
            service, new HttpLimits(1 << 20, TIMEOUT, BUDGET, 64), Duration.ofSeconds(5));
    transport.start("127.0.0.1", 0);
  }

  @AfterEach
  void stop() {
    transport.close();
  }

  @Test
  void aRefusalOnTheHeadIsAnsweredInItsTurnAndTheBodyDropped() throws IOException {
    try (Socket socket = connect()) {
      send(
          socket,
          "GET /first HTTP/1.1\r\nHost: x\r\n\r\n"
              + "POST /denied HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789"
              + "GET /never HTTP/1.1\r\nHost: x\r\n\r\n");
      InputStream in = socket.getInputStream();
      assertThat(RawHttpResponse.read(in).body()).isEqualTo("/first 0");
      RawHttpResponse denied = RawHttpResponse.read(in);
      assertThat(denied.status()).isEqualTo(401);
      assertThat(denied.header("connection")).isEqualToIgnoringCase("close");
      assertThat(in.read()).as("closed after the refusal").isEqualTo(-1);
    }
    try (Socket socket = connect()) {
      send(socket, "POST /worker HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc");
      assertThat(RawHttpResponse.read(socket.getInputStream()).status()).isEqualTo(401);
    }
    try (Socket socket = connect()) {
      send(
          socket,
          "POST /worker HTTP/1.1\r\nHost: x\r\nAuthorization: yes\r\nContent-Length: 5\r\n\r\n"
              + "hello"
              + "GET /after HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(RawHttpResponse.read(socket.getInputStream()).body()).isEqualTo("/worker 5");
      assertThat(RawHttpResponse.read(socket.getInputStream()).body()).isEqualTo("/after 0");
    }
    assertThat(screenedOnWorkers).hasValue(2);
  }

  @Test
  void bodiesShareOneBudgetAndGiveItBack() throws IOException {
    // Buffers start at 64 KiB and double up to the declared length; growing holds both arrays.
    int declared = 100 * 1024;
    try (Socket first = connect();
        Socket second = connect()) {
      Socket[] both = {first, second};
      for (Socket socket : both) {
        send(socket, post("/body", declared));
        socket.getOutputStream().write(new byte[declared - 10]);
      }
      // Whichever the server reads second does not fit beside the other.
      int refused = firstToAnswer(both, Duration.ofSeconds(5));
      RawHttpResponse busy = RawHttpResponse.read(both[refused].getInputStream());
      assertThat(busy.status()).isEqualTo(503);
      assertThat(busy.header("retry-after")).isEqualTo("1");
      Socket held = both[1 - refused];
      held.getOutputStream().write(new byte[10]);
      assertThat(RawHttpResponse.read(held.getInputStream()).body()).isEqualTo("/body " + declared);
    }
    // Answered, refused and abandoned bodies give their bytes back: a 128 KiB body, which needs
    // 192 KiB of the 256 KiB while it grows, fits again after each abandoned one.
    for (int round = 0; round < 3; round++) {
      try (Socket abandoned = connect()) {
        send(abandoned, post("/gone", declared));
        abandoned.getOutputStream().write(new byte[declared / 2]);
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      int status = 0;
      while (status != 200 && System.nanoTime() < deadline) {
        try (Socket again = connect()) {
          send(again, post("/again", 128 * 1024));
          again.getOutputStream().write(new byte[128 * 1024]);
          status = RawHttpResponse.read(again.getInputStream()).status();
          // A 503 while the abandoned connection's close is still on its way.
          assertThat(status).isIn(200, 503);
        }
      }
      assertThat(status).as("round %d", round).isEqualTo(200);
    }
  }

  private static String post(String path, int contentLength) {
    return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + contentLength + "\r\n\r\n";
  }

  @Test
  void anIncompleteRequestGets408AndIsClosed() throws IOException {
    try (Socket socket = connect()) {
      send(socket, "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
      long started = System.nanoTime();
      RawHttpResponse late = RawHttpResponse.read(socket.getInputStream());
      assertThat(late.status()).isEqualTo(408);
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(TIMEOUT.minusMillis(100));
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
  }

  /** The index of the first socket with something to read, failing past the deadline. */
  private static int firstToAnswer(Socket[] sockets, Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < sockets.length; i++) {
        if (sockets[i].getInputStream().available() > 0) {
          return i;
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    throw new AssertionError("no answer within " + within);
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", transport.address().getPort());
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    socket.getOutputStream().flush();
  }

  private static HttpTransport.Answer text(int status, String body) {
    return new HttpTransport.Answer(
        status, Map.of("Content-Type", "text/plain"), body.getBytes(StandardCharsets.UTF_8));
  }
}
