package io.lakestream.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 response as read off a raw socket, for tests that speak HTTP by hand: status,
 * headers (names in lower case) and the {@code Content-Length} bytes of body as UTF-8.
 */
public record RawHttpResponse(int status, Map<String, String> headers, String body) {
  public RawHttpResponse {
    headers = Map.copyOf(headers);
  }

  /** A header's value by its lower-case name, or null. */
  public String header(String name) {
    return headers.get(name);
  }

  /**
   * Reads the next response from {@code in}.
   *
   * @throws IOException when the connection closes before a status line
   */
  public static RawHttpResponse read(InputStream in) throws IOException {
    String statusLine = line(in);
    if (statusLine == null) {
      throw new IOException("connection closed before a response");
    }
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new HashMap<>();
    for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
      int colon = header.indexOf(':');
      headers.put(
          header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          header.substring(colon + 1).trim());
    }
    byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
    return new RawHttpResponse(status, headers, new String(body, StandardCharsets.UTF_8));
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        return line.size() == 0 ? null : line.toString(StandardCharsets.US_ASCII);
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }
}
