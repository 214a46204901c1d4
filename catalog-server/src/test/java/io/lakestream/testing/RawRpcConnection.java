package io.lakestream.testing;

import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Wire;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * One stream RPC connection on loopback that sends request frames byte for byte as given, one
 * request at a time, for tests that feed the server what the Java client never would. Not thread
 * safe.
 */
public final class RawRpcConnection implements AutoCloseable {
  /** A request's API key, version and body, without the frame's length, key and id header. */
  public record Request(short apiKey, short version, byte[] body) {
    /** The whole frame: length, API key, version, {@code requestId}, body. */
    public ByteBuffer frame(int requestId) {
      ByteBuffer frame = ByteBuffer.allocate(Wire.REQUEST_HEADER + body.length);
      frame.putInt(Wire.REQUEST_HEADER - 4 + body.length);
      frame.putShort(apiKey).putShort(version).putInt(requestId).put(body);
      return frame.flip();
    }
  }

  /** The server's answer: its error code and the body after it. */
  public record Answer(ErrorCode error, byte[] body) {
    /** The error's message, or {@code OK}. */
    public String message() {
      if (error == ErrorCode.NONE) {
        return "OK";
      }
      try {
        return Wire.getString(ByteBuffer.wrap(body));
      } catch (RuntimeException e) {
        return "(no message: " + e + ")";
      }
    }
  }

  private final int port;
  private final Duration answerTimeout;
  private Socket socket;
  private DataInputStream in;
  private OutputStream out;
  private int nextId = 1;

  /** Connects to the stream RPC port; a call waits at most {@code answerTimeout} for its answer. */
  public RawRpcConnection(int port, Duration answerTimeout) throws IOException {
    this.port = port;
    this.answerTimeout = answerTimeout;
    reconnect();
  }

  /** Closes the connection, if open, and opens a new one (after the server closed it). */
  public void reconnect() throws IOException {
    if (socket != null) {
      socket.close();
    }
    socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout((int) answerTimeout.toMillis());
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  /** Sends {@code request} with the next request id and reads its answer. */
  public Answer call(Request request) throws IOException {
    int id = nextId++;
    ByteBuffer frame = request.frame(id);
    out.write(frame.array(), 0, frame.limit());
    out.flush();
    int length = in.readInt();
    int answered = in.readInt();
    ErrorCode error = ErrorCode.forCode(in.readShort());
    byte[] body = in.readNBytes(length - 6);
    if (answered != id) {
      throw new AssertionError("answer to request " + answered + " where " + id + " was sent");
    }
    return new Answer(error, body);
  }

  /** Sends a request of the remaining bytes of {@code body} and reads its answer. */
  public Answer call(short apiKey, short version, ByteBuffer body) throws IOException {
    byte[] bytes = new byte[body.remaining()];
    body.duplicate().get(bytes);
    return call(new Request(apiKey, version, bytes));
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
