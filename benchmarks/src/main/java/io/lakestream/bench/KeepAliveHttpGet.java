package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.Objects.requireNonNull;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A lean HTTP/1.1 client for one {@code GET} repeated on one kept-alive connection: the request
 * bytes are built once, and each response is read completely (status line, headers, and every body
 * byte, by {@code Content-Length} or chunked transfer coding) into one reused buffer and discarded.
 * The status line and headers are parsed in that buffer, without making strings. The buffer is
 * direct and the channel blocking, so a read is one system call and no copy to the heap.
 *
 * <p>It exists so that the load generator, which shares the machine's cores with the servers, costs
 * little CPU per request; the servers do the same work as for any client. No {@code
 * Accept-Encoding} is sent, so neither server compresses. Reads have no timeout of their own: a
 * caller that waits too long {@linkplain #abort() aborts} the connection from another thread. Not
 * thread safe otherwise: one per client thread.
 */
final class KeepAliveHttpGet implements AutoCloseable {
  private static final byte[] HTTP_1_1 = "HTTP/1.1 ".getBytes(US_ASCII);
  private static final byte[] CONTENT_LENGTH = "content-length".getBytes(US_ASCII);
  private static final byte[] TRANSFER_ENCODING = "transfer-encoding".getBytes(US_ASCII);
  private static final byte[] CONNECTION = "connection".getBytes(US_ASCII);
  private static final byte[] CHUNKED = "chunked".getBytes(US_ASCII);
  private static final byte[] CLOSE = "close".getBytes(US_ASCII);

  private final InetSocketAddress address;
  private final ByteBuffer request;
  private final int connectTimeoutMillis;
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
  // Unread response bytes are buffer[position, limit).
  private int position;
  private int limit;
  private volatile SocketChannel channel;
  private volatile boolean aborted;

  KeepAliveHttpGet(URI uri, int connectTimeoutMillis) {
    requireNonNull(uri, "uri is null");
    this.address = new InetSocketAddress(uri.getHost(), uri.getPort());
    this.connectTimeoutMillis = connectTimeoutMillis;
    String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    this.request =
        ByteBuffer.wrap(
                ("GET "
                        + path
                        + " HTTP/1.1\r\nHost: "
                        + uri.getHost()
                        + ":"
                        + uri.getPort()
                        + "\r\nAccept: application/json\r\n\r\n")
                    .getBytes(US_ASCII))
            .asReadOnlyBuffer();
  }

  /** A complete response: its status and how many body bytes were read. */
  record Response(int status, long bodyBytes) {}

  /**
   * Sends the request and reads the whole response. A connection the server closed is reopened
   * once.
   */
  Response send() throws IOException {
    boolean reused = channel != null;
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
    if (aborted) {
      throw new IOException("Connection to " + address + " aborted");
    }
    SocketChannel open = channel;
    if (open == null) {
      open = SocketChannel.open();
      channel = open;
      open.setOption(StandardSocketOptions.TCP_NODELAY, true);
      open.socket().connect(address, connectTimeoutMillis);
      position = 0;
      limit = 0;
    }
    ByteBuffer sent = request.duplicate();
    while (sent.hasRemaining()) {
      open.write(sent);
    }
    int newline = nextLine();
    int end = contentEnd(newline);
    if (end - position < HTTP_1_1.length + 3 || !startsWith(position, end, HTTP_1_1)) {
      throw new IOException("Not an HTTP/1.1 status line: " + text(position, end));
    }
    int status = (int) digits(position + HTTP_1_1.length, position + HTTP_1_1.length + 3, 10);
    position = newline + 1;
    long contentLength = -1;
    boolean chunked = false;
    boolean close = false;
    for (newline = nextLine(); (end = contentEnd(newline)) > position; newline = nextLine()) {
      int colon = indexOf(position, end, (byte) ':');
      if (colon >= 0) {
        int nameEnd = trimEnd(position, colon);
        int value = skipSpaces(colon + 1, end);
        int valueEnd = trimEnd(value, end);
        if (equalsIgnoreCase(position, nameEnd, CONTENT_LENGTH)) {
          contentLength = digits(value, valueEnd, 10);
        } else if (equalsIgnoreCase(position, nameEnd, TRANSFER_ENCODING)) {
          chunked = containsIgnoreCase(value, valueEnd, CHUNKED);
        } else if (equalsIgnoreCase(position, nameEnd, CONNECTION)) {
          close = equalsIgnoreCase(value, valueEnd, CLOSE);
        }
      }
      position = newline + 1;
    }
    position = newline + 1;
    long body;
    if (chunked) {
      body = 0;
      for (long size = chunkSize(); size > 0; size = chunkSize()) {
        skip(size);
        body += size;
        position = nextLine() + 1;
      }
      // Trailers, up to the empty line.
      for (newline = nextLine(); contentEnd(newline) > position; newline = nextLine()) {
        position = newline + 1;
      }
      position = newline + 1;
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
    int newline = nextLine();
    int end = contentEnd(newline);
    int extension = indexOf(position, end, (byte) ';');
    long size =
        digits(skipSpaces(position, end), trimEnd(position, extension < 0 ? end : extension), 16);
    position = newline + 1;
    return size;
  }

  /**
   * The index of the {@code LF} ending the line at {@code position}; reads until it is buffered.
   */
  private int nextLine() throws IOException {
    int scanned = position;
    while (true) {
      int newline = indexOf(scanned, limit, (byte) '\n');
      if (newline >= 0) {
        return newline;
      }
      // fill() may move the unread bytes to the front of the buffer.
      scanned = limit - position;
      fill();
      scanned += position;
    }
  }

  /** Where the line at {@code position} ending with the {@code LF} at {@code newline} ends. */
  private int contentEnd(int newline) {
    return newline > position && buffer.get(newline - 1) == '\r' ? newline - 1 : newline;
  }

  /**
   * Reads more bytes after the unread ones, moving those to the front of the buffer first if they
   * end at its end.
   */
  private void fill() throws IOException {
    if (limit == buffer.capacity()) {
      if (position == 0) {
        throw new IOException("Response line longer than " + buffer.capacity() + " bytes");
      }
      buffer.put(0, buffer, position, limit - position);
      limit -= position;
      position = 0;
    }
    int read = channel.read(buffer.limit(buffer.capacity()).position(limit));
    if (read < 0) {
      throw new EOFException("Connection closed inside a response");
    }
    limit += read;
  }

  /** Discards {@code bytes} body bytes: first the buffered ones, then straight from the socket. */
  private void skip(long bytes) throws IOException {
    long left = bytes;
    int buffered = (int) Math.min(left, limit - position);
    position += buffered;
    left -= buffered;
    if (left > 0) {
      position = 0;
      limit = 0;
    }
    while (left > 0) {
      int read = channel.read(buffer.limit((int) Math.min(buffer.capacity(), left)).position(0));
      if (read < 0) {
        throw new EOFException("Connection closed with " + left + " body bytes unread");
      }
      left -= read;
    }
  }

  private int indexOf(int from, int to, byte wanted) {
    for (int i = from; i < to; i++) {
      if (buffer.get(i) == wanted) {
        return i;
      }
    }
    return -1;
  }

  private int skipSpaces(int from, int to) {
    int i = from;
    while (i < to && (buffer.get(i) == ' ' || buffer.get(i) == '\t')) {
      i++;
    }
    return i;
  }

  private int trimEnd(int from, int to) {
    int i = to;
    while (i > from && (buffer.get(i - 1) == ' ' || buffer.get(i - 1) == '\t')) {
      i--;
    }
    return i;
  }

  private boolean startsWith(int from, int to, byte[] prefix) {
    if (to - from < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (buffer.get(from + i) != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code buffer[from, to)} is {@code lowerCase}, ignoring the case of ASCII letters. */
  private boolean equalsIgnoreCase(int from, int to, byte[] lowerCase) {
    return to - from == lowerCase.length && regionMatchesIgnoreCase(from, lowerCase);
  }

  private boolean containsIgnoreCase(int from, int to, byte[] lowerCase) {
    for (int i = from; i + lowerCase.length <= to; i++) {
      if (regionMatchesIgnoreCase(i, lowerCase)) {
        return true;
      }
    }
    return false;
  }

  private boolean regionMatchesIgnoreCase(int from, byte[] lowerCase) {
    for (int i = 0; i < lowerCase.length; i++) {
      int c = buffer.get(from + i);
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c != lowerCase[i]) {
        return false;
      }
    }
    return true;
  }

  /** The number written in {@code buffer[from, to)} in {@code radix} (10 or 16). */
  private long digits(int from, int to, int radix) throws IOException {
    if (from >= to) {
      throw new IOException("Missing number in response");
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      int digit = Character.digit(buffer.get(i), radix);
      if (digit < 0 || value > (Long.MAX_VALUE - digit) / radix) {
        throw new IOException("Not a number in response: " + text(from, to));
      }
      value = value * radix + digit;
    }
    return value;
  }

  private String text(int from, int to) {
    byte[] bytes = new byte[to - from];
    buffer.get(from, bytes);
    return new String(bytes, US_ASCII);
  }

  /**
   * Closes the connection from any thread: a request blocked on it fails with an {@link
   * IOException}, and so does every later one.
   */
  void abort() {
    aborted = true;
    closeChannel();
  }

  @Override
  public void close() {
    closeChannel();
    channel = null;
    position = 0;
    limit = 0;
  }

  private void closeChannel() {
    SocketChannel open = channel;
    if (open != null) {
      try {
        open.close();
      } catch (IOException e) {
        // Nothing to do: the connection is gone either way.
      }
    }
  }
}
