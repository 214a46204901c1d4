package io.lakestream.store.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KvConfigTest {
  @Test
  void defaultsArePinned() {
    assertThat(KvConfig.defaults())
        .isEqualTo(
            new KvConfig(512L << 20, 512L << 20, 64L << 20, Duration.ofMinutes(10), 256L << 20));
  }

  @Test
  void sizesMustBePositive() {
    assertThatThrownBy(() -> new KvConfig(0, 1, 1, Duration.ofMinutes(1), 1))
        .hasMessage(
            "KV sizes must be positive: blockCacheBytes=0, writeBufferBytes=1, checkpointBytes=1");
    assertThatThrownBy(() -> new KvConfig(1, -1, 1, Duration.ofMinutes(1), 1))
        .hasMessage("KV row cache size must not be negative: -1");
  }
}
