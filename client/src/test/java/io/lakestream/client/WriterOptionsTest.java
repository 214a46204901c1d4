package io.lakestream.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.arrow.Compression;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WriterOptionsTest {
  @Test
  void defaultsAreTheDocumentedOnes() {
    WriterOptions defaults = WriterOptions.defaults();
    assertThat(defaults.batchRows()).isEqualTo(8192);
    assertThat(defaults.batchBytes()).isEqualTo(4 * 1024 * 1024);
    assertThat(defaults.linger()).isEqualTo(Duration.ofMillis(2));
    assertThat(defaults.compression()).isEqualTo(Compression.ZSTD);
    assertThat(defaults.maxInFlightRequests()).isEqualTo(16);
  }

  @Test
  void eachWitherChangesOnlyItsOption() {
    WriterOptions changed =
        WriterOptions.defaults()
            .withBatchRows(10)
            .withBatchBytes(2048)
            .withLinger(Duration.ofMillis(50))
            .withCompression(Compression.NONE)
            .withMaxInFlightRequests(3);
    assertThat(changed)
        .isEqualTo(new WriterOptions(10, 2048, Duration.ofMillis(50), Compression.NONE, 3));
  }

  @Test
  void valuesOutOfRangeAreRefusedNamingTheOption() {
    WriterOptions defaults = WriterOptions.defaults();
    assertThatThrownBy(() -> defaults.withBatchRows(0)).hasMessageContaining("batchRows");
    assertThatThrownBy(() -> defaults.withBatchBytes(0)).hasMessageContaining("batchBytes");
    assertThatThrownBy(() -> defaults.withMaxInFlightRequests(0))
        .hasMessageContaining("maxInFlightRequests");
    assertThatThrownBy(() -> defaults.withLinger(Duration.ofMillis(-1)))
        .hasMessageContaining("linger");
    assertThatThrownBy(() -> defaults.withLinger(null)).isInstanceOf(NullPointerException.class);
  }
}
