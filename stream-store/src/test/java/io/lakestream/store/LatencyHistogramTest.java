package io.lakestream.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
  @Test
  void countsEachDurationInTheFirstBucketWhoseBoundHoldsIt() {
    LatencyHistogram histogram = new LatencyHistogram();
    // Bounds 50us, 100us, 250us, 500us, 1ms, 2.5ms, 5ms, 10ms, 25ms, 50ms, 100ms, 250ms, 500ms,
    // 1s, 2.5s, 10s, then above.
    histogram.record(0);
    histogram.record(50_000); // on a bound: in it
    histogram.record(50_001);
    histogram.record(3_000_000);
    histogram.record(11_000_000_000L);
    histogram.record(-5); // a clock step counts as zero

    LatencyHistogram.Snapshot snapshot = histogram.snapshot();
    assertThat(snapshot.counts())
        .containsExactly(3, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);
    assertThat(snapshot.count()).isEqualTo(6);
    assertThat(snapshot.sumSeconds()).isCloseTo(11.003100001, within(1e-9));
    assertThat(LatencyHistogram.UPPER_BOUNDS_SECONDS).hasSize(snapshot.counts().length - 1);
  }
}
