package io.lakestream.lake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.lake.iceberg.IcebergTableValidator;
import org.junit.jupiter.api.Test;

class LakeTableValidatorsTest {
  @Test
  void findsIcebergsValidatorOnTheClassPath() {
    assertThat(LakeTableValidators.of("iceberg")).isInstanceOf(IcebergTableValidator.class);
  }

  @Test
  void aFormatWithoutAValidatorIsADeploymentErrorNamingTheKnownOnes() {
    // lake's own tests do not see the lake-paimon module, so Paimon's validator is absent here.
    assertThatThrownBy(() -> LakeTableValidators.of("paimon"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'paimon'")
        .hasMessageContaining("[iceberg]");
  }
}
