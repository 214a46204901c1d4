package io.lakestream.testing;

import io.lakestream.testing.RawRpcConnection.Request;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback proxy between a client and a server's stream RPC port that forwards every connection
 * both ways and records each request frame that passes, as the client sent it: point a {@code
 * Connection} at {@link #port()} to capture what the real client writes. While {@linkplain
 * #holdRequests() held}, request frames are recorded but not forwarded (so no response comes) until
 * {@link #releaseRequests()}.
 */
public final class RecordingRpcProxy implements AutoCloseable {
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final ServerSocket listener;
  private final int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private boolean held;

  /** Listens on a free loopback port and forwards to the stream RPC port {@code target}. */
  public RecordingRpcProxy(int target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("recording-rpc-proxy").start(this::accept);
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** The requests forwarded so far, in the order they arrived. */
  public List<Request> requests() {
    return List.copyOf(requests);
  }

  /** Stops forwarding requests: frames that arrive from now on wait in the proxy. */
  public void holdRequests() {
    synchronized (gate) {
      held = true;
    }
  }

  /** Forwards the held requests, in order, and every later one. */
  public void releaseRequests() {
    synchronized (gate) {
      held = false;
      gate.notifyAll();
    }
  }

  private void awaitForwarding() throws IOException {
    synchronized (gate) {
      while (held) {
        try {
          gate.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("Interrupted while requests were held", e);
        }
      }
    }
  }

  private void accept() {
    try {
      while (true) {
        Socket client = listener.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(client);
        sockets.add(upstream);
        InputStream fromServer = upstream.getInputStream();
        OutputStream toClient = client.getOutputStream();
        InputStream fromClient = client.getInputStream();
        OutputStream toServer = upstream.getOutputStream();
        Thread.ofPlatform().daemon().start(() -> quietly(() -> fromServer.transferTo(toClient)));
        Thread.ofPlatform().daemon().start(() -> quietly(() -> record(fromClient, toServer)));
      }
    } catch (IOException e) {
      // closed
    }
  }

  private interface Streams {
    void run() throws IOException;
  }

  private static void quietly(Streams streams) {
    try {
      streams.run();
    } catch (IOException e) {
      // the connection closed
    }
  }

  private void record(InputStream from, OutputStream to) throws IOException {
    DataInputStream in = new DataInputStream(from);
    DataOutputStream out = new DataOutputStream(to);
    while (true) {
      int length = in.readInt();
      byte[] frame = new byte[length];
      in.readFully(frame);
      ByteBuffer view = ByteBuffer.wrap(frame);
      short apiKey = view.getShort();
      short version = view.getShort();
      view.getInt();
      byte[] body = new byte[view.remaining()];
      view.get(body);
      requests.add(new Request(apiKey, version, body));
      awaitForwarding();
      out.writeInt(length);
      out.write(frame);
      out.flush();
    }
  }

  @Override
  public void close() throws IOException {
    releaseRequests();
    listener.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }
}
