package io.lakestream.stream;

import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.store.BatchProjector;
import io.lakestream.store.StreamTable;
import java.nio.ByteBuffer;

/** Projection and filtering of fetched Arrow batches. */
public final class ArrowBatchProjector implements BatchProjector {
  @Override
  public ByteBuffer apply(
      StreamTable table, ByteBuffer batches, int[] projection, ByteBuffer filter) {
    throw new RpcException(
        ErrorCode.INVALID_REQUEST, "Projection and filter pushdown are not available yet");
  }
}
