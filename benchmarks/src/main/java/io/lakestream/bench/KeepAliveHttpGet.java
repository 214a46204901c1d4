package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Locale;

/**
 * A lean HTTP/1.1 client for one {@code GET} repeated on one kept-alive connection: the request
 * bytes are built once, and each response is read completely (status line, headers, and every body
 * byte, by {@code Content-Length} or chunked transfer coding) into a reused buffer and discarded.
 *
 * <p>It exists so that the load generator, which shares the machine's cores with the servers, costs
 * little CPU per request; the servers do the same work as for any client. No {@code
 * Accept-Encoding} is sent, so neither server compresses. Not thread safe: one per client thread.
 */
final class KeepAliveHttpGet implements AutoCloseable {
  private final InetSocketAddress address;
  private final byte[] request;
  private final int timeoutMillis;
  private final byte[] discard = new byte[64 * 1024];
  private final StringBuilder line = new StringBuilder(128);
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  KeepAliveHttpGet(URI uri, int timeoutMillis) {
    requireNonNull(uri, "uri is null");
    this.address = new InetSocketAddress(uri.getHost(), uri.getPort());
    this.timeoutMillis = timeoutMillis;
    String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    this.request =
        ("GET "
                + path
                + " HTTP/1.1\r\nHost: "
                + uri.getHost()
                + ":"
                + uri.getPort()
                + "\r\nAccept: application/json\r\n\r\n")
            .getBytes(US_ASCII);
  }

  /** A complete response: its status and how many body bytes were read. */
  record Response(int status, long bodyBytes) {}

  /**
   * Sends the request and reads the whole response. A connection the server closed is reopened
   * once.
   */
  Response send() throws IOException {
    boolean reused = socket != null;
    try {
      return exchange();
    } catch (IOException e) {
      close();
      if (!reused) {
        throw e;
      }
      return exchange();
    }
  }

  private Response exchange() throws IOException {
    if (socket == null) {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(address, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
      out = socket.getOutputStream();
    }
    out.write(request);
    out.flush();
    String statusLine = readLine();
    if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("Not an HTTP/1.1 status line: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long contentLength = -1;
    boolean chunked = false;
    boolean close = false;
    for (String header = readLine(); !header.isEmpty(); header = readLine()) {
      int colon = header.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = header.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> contentLength = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> close = value.equalsIgnoreCase("close");
        default -> {}
      }
    }
    long body;
    if (chunked) {
      body = 0;
      for (long size = chunkSize(); size > 0; size = chunkSize()) {
        skip(size);
        body += size;
        readLine();
      }
      // Trailers, up to the empty line.
      while (!readLine().isEmpty()) {}
    } else if (contentLength >= 0) {
      skip(contentLength);
      body = contentLength;
    } else {
      throw new IOException("Response of status " + status + " has no length");
    }
    if (close) {
      close();
    }
    return new Response(status, body);
  }

  private long chunkSize() throws IOException {
    String size = readLine();
    int extension = size.indexOf(';');
    return Long.parseLong(extension < 0 ? size.trim() : size.substring(0, extension).trim(), 16);
  }

  private void skip(long bytes) throws IOException {
    long left = bytes;
    while (left > 0) {
      int read = in.read(discard, 0, (int) Math.min(discard.length, left));
      if (read < 0) {
        throw new EOFException("Connection closed with " + left + " body bytes unread");
      }
      left -= read;
    }
  }

  private String readLine() throws IOException {
    line.setLength(0);
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("Connection closed inside a response");
      }
      if (c == '\n') {
        int length = line.length();
        if (length > 0 && line.charAt(length - 1) == '\r') {
          line.setLength(length - 1);
        }
        return line.toString();
      }
      line.append((char) c);
    }
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // Nothing to do: the connection is gone either way.
      }
      socket = null;
      in = null;
      out = null;
    }
  }
}
