package io.lakestream.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.rpc.AdminMessages.DescribeTableResponse;
import io.lakestream.client.rpc.AdminMessages.TableRequest;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The DESCRIBE_TABLE bodies: what is encoded decodes to the same values, malformed counts fail. */
class AdminMessagesTest {
  @Test
  void aTableRequestRoundTrips() {
    TableRequest request = new TableRequest("lake", List.of("a", "b"), "événements");
    assertThat(TableRequest.decode(request.encode())).isEqualTo(request);
    TableRequest defaultWarehouse = new TableRequest(null, List.of("a"), "t");
    assertThat(TableRequest.decode(defaultWarehouse.encode())).isEqualTo(defaultWarehouse);
  }

  @Test
  void aDescribeTableResponseRoundTrips() {
    DescribeTableResponse response =
        new DescribeTableResponse(
            "6f1c",
            "{\"type\":\"struct\",\"fields\":[]}",
            "",
            Map.of("lakestream.kind", "log", "owner", "me"),
            Map.of("region=eu", Map.of(0, 120L, 3, 7L), "region=us", Map.of(1, 1L << 40)));

    DescribeTableResponse decoded = DescribeTableResponse.decode(response.encode());

    assertThat(decoded).isEqualTo(response);
    assertThat(decoded.tieredOffsets().get("region=eu")).containsEntry(3, 7L);
    assertThat(decoded.tieredOffsets().get("region=us")).containsEntry(1, 1L << 40);
    DescribeTableResponse nothingTiered =
        new DescribeTableResponse("id", "{}", "{\"spec-id\":0}", Map.of(), Map.of());
    assertThat(DescribeTableResponse.decode(nothingTiered.encode())).isEqualTo(nothingTiered);
  }

  @Test
  void aMalformedPartitionCountIsRefused() {
    ByteBuffer encoded =
        new DescribeTableResponse("id", "{}", "", Map.of(), Map.of("", Map.of(0, 5L))).encode();
    // The partition count follows the id, schema, spec and the property count.
    int partitionCount = Wire.stringSize("id") + 4 + 2 + 4 + 4;
    encoded.putInt(partitionCount, 1_000_000);
    assertThatThrownBy(() -> DescribeTableResponse.decode(encoded))
        .isInstanceOf(RpcException.class)
        .hasMessageContaining("Invalid partition count 1000000");
  }
}
