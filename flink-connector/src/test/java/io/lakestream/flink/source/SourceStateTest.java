package io.lakestream.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.api.ValidationException;
import org.junit.jupiter.api.Test;

/** The source's checkpoint forms and the parsing of its start options. */
class SourceStateTest {
  @Test
  void splitsSurviveTheirCheckpointForm() throws Exception {
    for (LogSplit split :
        List.of(
            new LogSplit("", 0, 17, LogSplit.UNBOUNDED),
            new LogSplit("region=eu", 3, LogSplit.EARLIEST, 250),
            new LogSplit("día=2026-12-05", 1, 0, 0))) {
      byte[] bytes = LogSplitSerializer.INSTANCE.serialize(split);
      assertThat(
              LogSplitSerializer.INSTANCE.deserialize(
                  LogSplitSerializer.INSTANCE.getVersion(), bytes))
          .isEqualTo(split);
    }
  }

  @Test
  void enumeratorStateSurvivesItsCheckpointForm() throws Exception {
    LogEnumeratorState state =
        new LogEnumeratorState(
            true,
            Set.of("", "region=us"),
            List.of(new LogSplit("region=us", 2, LogSplit.EARLIEST, LogSplit.UNBOUNDED)));
    byte[] bytes = LogEnumeratorState.SERIALIZER.serialize(state);
    assertThat(LogEnumeratorState.SERIALIZER.deserialize(1, bytes)).isEqualTo(state);
    assertThatThrownBy(() -> LogEnumeratorState.SERIALIZER.deserialize(2, bytes))
        .hasMessageContaining("version 2");
  }

  @Test
  void aSplitIsFinishedOnlyWhenBoundedAndReadToItsStop() {
    assertThat(new LogSplit("", 0, 5, 5).isFinished()).isTrue();
    assertThat(new LogSplit("", 0, 4, 5).isFinished()).isFalse();
    assertThat(new LogSplit("", 0, LogSplit.EARLIEST, 0).isFinished()).isFalse();
    assertThat(new LogSplit("", 0, 1L << 40, LogSplit.UNBOUNDED).isFinished()).isFalse();
    assertThat(new LogSplit("", 0, 3, 9).at(9).isFinished()).isTrue();
  }

  @Test
  void startOffsetsParseByPartitionAndBucket() {
    assertThat(ScanOptions.parseOffsets("0:15, 1:20"))
        .isEqualTo(Map.of("", Map.of(0, 15L, 1, 20L)));
    assertThat(ScanOptions.parseOffsets("region=eu/3:7,a/b/2:9"))
        .isEqualTo(Map.of("region=eu", Map.of(3, 7L), "a/b", Map.of(2, 9L)));
    for (String bad : List.of("zero:1", "1:-4", ":5", "3", "1:2:x")) {
      assertThatThrownBy(() -> ScanOptions.parseOffsets(bad))
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("'scan.startup.offsets' must be bucket:offset pairs");
    }
  }

  @Test
  void startTimestampsAreMillisOrInstants() {
    assertThat(ScanOptions.parseTimestamp("1796450000123")).isEqualTo(1796450000123L);
    assertThat(ScanOptions.parseTimestamp("2026-12-05T06:00:00Z")).isEqualTo(1796450400000L);
    assertThatThrownBy(() -> ScanOptions.parseTimestamp("yesterday"))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("'scan.startup.timestamp'");
  }
}
