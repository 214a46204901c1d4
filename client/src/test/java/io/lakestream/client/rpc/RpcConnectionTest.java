package io.lakestream.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The connection's reader against a scripted peer on loopback: frames split and joined in every way
 * TCP may deliver them, bodies read into caller memory, and that memory handed back whenever no
 * future takes it.
 */
class RpcConnectionTest {

  /** Many small responses written at once, then one large body written in small pieces. */
  @Test
  void readsResponsesHoweverTheBytesArrive() throws Exception {
    byte[] large = new byte[3 << 20];
    for (int i = 0; i < large.length; i++) {
      large[i] = (byte) (i * 31 + 7);
    }
    try (Peer peer =
            Peer.start(
                requests -> {
                  ByteBuffer burst = ByteBuffer.allocate(200 * (Wire.RESPONSE_HEADER + 4));
                  for (int i = 0; i < 200; i++) {
                    burst.put(frame(requests.get(i), ErrorCode.NONE, intBytes(i)));
                  }
                  requests.peer().write(burst.array());
                  byte[] last = frame(requests.get(200), ErrorCode.NONE, large).array();
                  for (int from = 0; from < last.length; from += 1000) {
                    requests.peer().write(last, from, Math.min(1000, last.length - from));
                  }
                },
                201);
        RpcConnection connection = peer.connect()) {
      List<CompletableFuture<ByteBuffer>> small = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        small.add(connection.send(ApiKey.METADATA, ByteBuffer.allocate(0)));
      }
      Memory memory = new Memory();
      CompletableFuture<ByteBuffer> big =
          connection.send(ApiKey.FETCH, memory, ByteBuffer.allocate(0));
      for (int i = 0; i < 200; i++) {
        assertThat(small.get(i).get(10, TimeUnit.SECONDS).getInt()).isEqualTo(i);
      }
      ByteBuffer body = big.get(10, TimeUnit.SECONDS);
      assertThat(body.isDirect()).isTrue();
      assertThat(body.remaining()).isEqualTo(large.length);
      byte[] read = new byte[large.length];
      body.get(read);
      assertThat(read).isEqualTo(large);
      assertThat(memory.allocated).hasSize(1);
      assertThat(memory.discarded).isEmpty();
    }
  }

  /** An error answer becomes the server's typed error; its body goes back to the memory. */
  @Test
  void anErrorAnswerHandsItsMemoryBack() throws Exception {
    ByteBuffer message = ByteBuffer.allocate(64);
    Wire.putString(message, "offset 9 is below the log start");
    byte[] error = java.util.Arrays.copyOf(message.array(), message.position());
    try (Peer peer =
            Peer.start(
                requests ->
                    requests
                        .peer()
                        .write(
                            frame(requests.get(0), ErrorCode.OFFSET_OUT_OF_RANGE, error).array()),
                1);
        RpcConnection connection = peer.connect()) {
      Memory memory = new Memory();
      CompletableFuture<ByteBuffer> fetch =
          connection.send(ApiKey.FETCH, memory, ByteBuffer.allocate(0));
      assertThatThrownBy(() -> fetch.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              RpcException.class,
              e -> {
                assertThat(e.error()).isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
                assertThat(e.getMessage()).contains("offset 9 is below the log start");
              });
      assertThat(memory.discarded).containsExactlyElementsOf(memory.allocated);
    }
  }

  /** A response whose future was cancelled is read past, and its memory handed back. */
  @Test
  void aCancelledRequestsResponseHandsItsMemoryBack() throws Exception {
    CompletableFuture<Void> cancelled = new CompletableFuture<>();
    try (Peer peer =
            Peer.start(
                requests -> {
                  cancelled.get(10, TimeUnit.SECONDS);
                  requests
                      .peer()
                      .write(frame(requests.get(0), ErrorCode.NONE, new byte[9]).array());
                  requests
                      .peer()
                      .write(frame(requests.get(1), ErrorCode.NONE, intBytes(42)).array());
                },
                2);
        RpcConnection connection = peer.connect()) {
      Memory memory = new Memory();
      CompletableFuture<ByteBuffer> first =
          connection.send(ApiKey.FETCH, memory, ByteBuffer.allocate(0));
      CompletableFuture<ByteBuffer> second =
          connection.send(ApiKey.METADATA, ByteBuffer.allocate(0));
      first.cancel(false);
      cancelled.complete(null);
      assertThat(second.get(10, TimeUnit.SECONDS).getInt()).isEqualTo(42);
      assertThat(memory.allocated).hasSize(1);
      assertThat(memory.discarded).containsExactlyElementsOf(memory.allocated);
    }
  }

  private static byte[] intBytes(int value) {
    return ByteBuffer.allocate(4).putInt(value).array();
  }

  private static ByteBuffer frame(int requestId, ErrorCode code, byte[] body) {
    return ByteBuffer.allocate(Wire.RESPONSE_HEADER + body.length)
        .putInt(Wire.RESPONSE_HEADER - 4 + body.length)
        .putInt(requestId)
        .putShort(code.code())
        .put(body)
        .flip();
  }

  /** Direct memory that records what it lent and what came back. */
  private static final class Memory implements ResponseMemory {
    final List<ByteBuffer> allocated = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<ByteBuffer> discarded = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public ByteBuffer allocate(int size) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(size);
      allocated.add(buffer);
      return buffer;
    }

    @Override
    public void discard(ByteBuffer body) {
      discarded.add(body);
    }
  }

  /** The request ids a peer received, and its output. */
  private record Requests(List<Integer> ids, DataOutputStream peer) {
    int get(int index) {
      return ids.get(index);
    }
  }

  private interface Script {
    void answer(Requests requests) throws Exception;
  }

  /** A server on loopback that reads a number of request frames, then runs its script. */
  private static final class Peer implements AutoCloseable {
    private final ServerSocket server;
    private final Thread thread;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private Peer(ServerSocket server, Script script, int requests) {
      this.server = server;
      this.thread =
          new Thread(
              () -> {
                try (Socket socket = server.accept()) {
                  DataInputStream in = new DataInputStream(socket.getInputStream());
                  List<Integer> ids = new ArrayList<>();
                  for (int i = 0; i < requests; i++) {
                    int length = in.readInt();
                    in.readShort();
                    in.readShort();
                    ids.add(in.readInt());
                    in.skipNBytes(length - (Wire.REQUEST_HEADER - 4));
                  }
                  DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                  script.answer(new Requests(ids, out));
                  out.flush();
                  // Keep the connection open until the test has read everything.
                  in.read();
                  done.complete(null);
                } catch (Exception e) {
                  done.completeExceptionally(e);
                }
              },
              "rpc-test-peer");
      thread.setDaemon(true);
      thread.start();
    }

    static Peer start(Script script, int requests) throws IOException {
      return new Peer(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()), script, requests);
    }

    RpcConnection connect() throws IOException {
      return RpcConnection.open(
          InetAddress.getLoopbackAddress().getHostAddress(),
          server.getLocalPort(),
          Duration.ofSeconds(10));
    }

    @Override
    public void close() throws Exception {
      server.close();
      thread.join(10_000);
      assertThat(done).isDone();
      if (done.isCompletedExceptionally()) {
        done.get(); // rethrows the peer's failure
      }
    }
  }
}
