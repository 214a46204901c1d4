package io.lakestream.lake.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTiererFactory;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PaimonTiererFactoryTest {
  @Test
  void theModuleRegistersPaimonsTiererFactoryForServiceLoader() {
    // The tiering module finds Paimon's tierer only this way (it does not depend on lake-paimon).
    List<LakeTiererFactory> factories =
        ServiceLoader.load(LakeTiererFactory.class).stream()
            .map(ServiceLoader.Provider::get)
            .collect(Collectors.toList());
    assertThat(factories).hasSize(1);
    assertThat(factories.get(0)).isInstanceOf(PaimonTiererFactory.class);
    assertThat(factories.get(0).format()).isEqualTo(LakeFormat.PAIMON);
  }
}
