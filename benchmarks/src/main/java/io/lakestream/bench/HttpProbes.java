package io.lakestream.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** One-request checks of an HTTP server a benchmark started, for polling until it is ready. */
final class HttpProbes {
  private HttpProbes() {}

  /**
   * Whether a GET of {@code uri} answers 200 within {@code timeout}; false when it cannot connect.
   */
  static boolean answersOk(HttpClient http, URI uri, Duration timeout) throws InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }
}
