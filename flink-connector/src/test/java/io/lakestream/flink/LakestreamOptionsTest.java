package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.junit.jupiter.api.Test;

/** Pins the options' keys and defaults, and how the delivery guarantee is spelled. */
class LakestreamOptionsTest {
  @Test
  void keysAndDefaults() {
    assertThat(LakestreamOptions.SINK_DELIVERY_GUARANTEE.key())
        .isEqualTo("sink.delivery-guarantee");
    assertThat(LakestreamOptions.SINK_DELIVERY_GUARANTEE.defaultValue())
        .isEqualTo(DeliveryGuarantee.AT_LEAST_ONCE);
    assertThat(LakestreamOptions.DEFAULT_DATABASE.defaultValue()).isEqualTo("default");
    assertThat(LakestreamOptions.URI.hasDefaultValue()).isFalse();
    assertThat(LakestreamOptions.RPC_ADDRESS.hasDefaultValue()).isFalse();
  }

  @Test
  void deliveryGuaranteesAreSpelledAsInFlinksOtherSinks() {
    Configuration options = new Configuration();
    options.setString("sink.delivery-guarantee", "exactly-once");
    assertThat(options.get(LakestreamOptions.SINK_DELIVERY_GUARANTEE))
        .isEqualTo(DeliveryGuarantee.EXACTLY_ONCE);
    options.setString("sink.delivery-guarantee", "at-least-once");
    assertThat(options.get(LakestreamOptions.SINK_DELIVERY_GUARANTEE))
        .isEqualTo(DeliveryGuarantee.AT_LEAST_ONCE);
  }
}
