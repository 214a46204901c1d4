package io.lakestream.store.rpc;

import io.lakestream.client.rpc.ApiKey;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Serves decoded RPC requests. {@link #handle} is called in request order per connection and must
 * not block for long: slow work (waiting for durability, long polls) belongs in the returned
 * future. A failed future carries an {@link io.lakestream.client.rpc.RpcException} with the error
 * code to send; any other failure is sent as an unknown server error.
 */
public interface RequestHandler {
  CompletableFuture<ResponseBody> handle(
      Session session, ApiKey key, short version, ByteBuffer body);

  /**
   * Answers a point lookup on the network thread that read it, when that needs no waiting at all
   * (the rows are in memory, the table and the caller's right to read it are known), sparing the
   * hand-over to a request thread and back; null when it cannot, and the request then goes to
   * {@link #handle}. Called only when no earlier request of the connection that keeps its order is
   * still being served, so the answer is the one {@link #handle} would give. Must never block.
   *
   * @throws io.lakestream.client.rpc.RpcException for a request {@link #handle} would refuse
   */
  default ResponseBody handleInline(Session session, ApiKey key, short version, ByteBuffer body) {
    return null;
  }
}
