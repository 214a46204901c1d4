package io.lakestream.lake.offsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@value TieredOffsets#SUMMARY_KEY} summary format. */
class TieredOffsetsTest {
  @Test
  void writesAndReadsTheDocumentedFormat() {
    TieredOffsets offsets =
        TieredOffsets.of(
            Map.of(
                "ts_day=2026-11-30/region=eu", Map.of(1, 88L, 0, 120L),
                "ts_day=2026-11-30/region=us+west", Map.of(2, 7L)));
    String json = offsets.toJson();
    assertThat(json)
        .isEqualTo(
            "{\"version\":1,\"partitions\":{\"ts_day=2026-11-30/region=eu\":{\"0\":120,\"1\":88},"
                + "\"ts_day=2026-11-30/region=us+west\":{\"2\":7}}}");
    assertThat(TieredOffsets.parse(json)).isEqualTo(offsets);
    assertThat(offsets.offset("ts_day=2026-11-30/region=eu", 1)).isEqualTo(88);
    assertThat(offsets.offset("ts_day=2026-11-30/region=eu", 2)).isZero();
    assertThat(offsets.offset("other", 0)).isZero();
    assertThat(TieredOffsets.parse("{\"version\":1,\"partitions\":{\"\":{}}}"))
        .isEqualTo(TieredOffsets.NONE);
  }

  @Test
  void refusesWhatItCannotRead() {
    assertThatThrownBy(() -> TieredOffsets.parse("{\"partitions\":{}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("version 1");
    assertThatThrownBy(() -> TieredOffsets.parse("{\"version\":1,\"partitions\":{\"\":{\"x\":1}}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucket 'x'");
    assertThatThrownBy(() -> TieredOffsets.parse("not json"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TieredOffsets.of(Map.of("", Map.of(0, -1L))))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
