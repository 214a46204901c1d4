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
}
