package io.lakestream.security;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.AdminMessages;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.Messages;
import io.lakestream.client.rpc.RowValues;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * For each stream RPC {@link ApiKey}, one well-formed request body aimed at the victim namespace
 * {@code b}: its log table {@code b.t} and its primary-key table {@code b.kv} (one bucket each).
 * Writes carry batches copied from the victim's own log, so that the only reason to refuse them is
 * who sends them. The switch has no default branch: a new key does not compile until it has a case.
 */
final class VictimStreamRequests {
  private final String logTableId;
  private final String kvTableId;
  private final ByteBuffer logBatch;
  private final ByteBuffer kvBatch;
  private final String schemaJson;

  /**
   * @param logBatch one whole batch of {@code b.t}'s log, as fetched
   * @param kvBatch one whole batch of {@code b.kv}'s changelog, as fetched
   */
  VictimStreamRequests(
      String logTableId,
      String kvTableId,
      ByteBuffer logBatch,
      ByteBuffer kvBatch,
      String schemaJson) {
    this.logTableId = requireNonNull(logTableId, "logTableId is null");
    this.kvTableId = requireNonNull(kvTableId, "kvTableId is null");
    this.logBatch = requireNonNull(logBatch, "logBatch is null");
    this.kvBatch = requireNonNull(kvBatch, "kvBatch is null");
    this.schemaJson = requireNonNull(schemaJson, "schemaJson is null");
  }

  /**
   * The body parts of the request for a key; their concatenation is the body.
   *
   * @param token what {@link ApiKey#AUTHENTICATE} presents
   */
  ByteBuffer[] body(ApiKey key, String token) {
    List<String> victim = List.of("b");
    ByteBuffer noFilter = ByteBuffer.allocate(0);
    return switch (key) {
      case AUTHENTICATE -> parts(new Messages.AuthenticateRequest(token).encode());
      case METADATA -> parts(new Messages.MetadataRequest(null, victim, "t").encode());
      case PRODUCE ->
          parts(new Messages.ProduceRequest(logTableId, "", 0, logBatch.duplicate()).encode());
      case FETCH ->
          parts(
              new Messages.FetchRequest(logTableId, "", 0, 0, 1 << 20, 0, new int[0], noFilter)
                  .encode());
      case LIST_OFFSETS ->
          parts(new Messages.ListOffsetsRequest(logTableId, "", 0, Messages.EARLIEST).encode());
      case CREATE_NAMESPACE ->
          parts(new AdminMessages.NamespaceRequest(null, List.of("b", "planted")).encode());
      case CREATE_TABLE ->
          parts(
              new AdminMessages.CreateTableRequest(
                      null, victim, "planted", schemaJson, "", Map.of("lakestream.kind", "log"))
                  .encode());
      case DROP_TABLE ->
          parts(new AdminMessages.DropTableRequest(null, victim, "t", true).encode());
      case LIST_TABLES -> parts(new AdminMessages.NamespaceRequest(null, victim).encode());
      case DESCRIBE_TABLE -> parts(new AdminMessages.TableRequest(null, victim, "t").encode());
      case LIST_PARTITIONS -> parts(new Messages.ListPartitionsRequest(logTableId).encode());
      case PUT_KV -> {
        ByteBuffer batch = kvBatch.duplicate();
        byte[] ops = new byte[io.lakestream.client.batch.LogBatch.wrap(batch).recordCount()];
        Arrays.fill(ops, Messages.PutKvRequest.DELETE);
        Messages.PutKvRequest request =
            new Messages.PutKvRequest(kvTableId, "", 0, new int[0], ByteBuffer.wrap(ops), batch);
        yield parts(request.encodePrefix(), batch);
      }
      case LOOKUP, PREFIX_LOOKUP ->
          parts(new Messages.LookupRequest(kvTableId, "", 0, key(1L)).encode());
      case SCAN_KV -> parts(new Messages.ScanKvRequest(kvTableId, "", 0, 0, 1000).encode());
    };
  }

  private static ByteBuffer key(long id) {
    return RowValues.encode(
        List.<Object[]>of(new Object[] {id}), List.of(new ArrowType.Int(64, true)), List.of("id"));
  }

  private static ByteBuffer[] parts(ByteBuffer... parts) {
    return parts;
  }
}
