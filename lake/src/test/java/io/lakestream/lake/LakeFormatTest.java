package io.lakestream.lake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LakeFormatTest {
  @Test
  void defaultsToIcebergAndReadsTheProperty() {
    assertThat(LakeFormat.PROPERTY).isEqualTo("lakestream.lake-format");
    assertThat(LakeFormat.of(Map.of())).isEqualTo(LakeFormat.ICEBERG);
    assertThat(LakeFormat.of(Map.of("lakestream.lake-format", "iceberg")))
        .isEqualTo(LakeFormat.ICEBERG);
    assertThat(LakeFormat.of(Map.of("lakestream.lake-format", "paimon")))
        .isEqualTo(LakeFormat.PAIMON);
    assertThat(LakeFormat.PAIMON.value()).isEqualTo("paimon");
  }

  @Test
  void refusesOtherValuesNamingThePropertyAndTheAllowedValues() {
    assertThatThrownBy(() -> LakeFormat.of(Map.of("lakestream.lake-format", "hudi")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid lakestream.lake-format 'hudi': expected one of iceberg, paimon");
    assertThatThrownBy(() -> LakeFormat.of(Map.of("lakestream.lake-format", "")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
