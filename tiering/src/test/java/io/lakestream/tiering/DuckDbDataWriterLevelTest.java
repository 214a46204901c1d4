package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;

class DuckDbDataWriterLevelTest {
  @Test
  void aTableWithoutALevelGetsZstdsUsualLevel() {
    assertThat(DuckDbParquetOptions.zstdLevel(Map.of())).isEqualTo(3);
  }

  @Test
  void aTablesOwnLevelIsHonoured() {
    assertThat(
            DuckDbParquetOptions.zstdLevel(
                Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, " 1 ")))
        .isEqualTo(1);
    assertThat(
            DuckDbParquetOptions.zstdLevel(Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "22")))
        .isEqualTo(22);
  }

  @Test
  void levelsZstdDoesNotHaveFallBackToTheDefault() {
    for (String level : new String[] {"0", "23", "-5", "fast", ""}) {
      assertThat(
              DuckDbParquetOptions.zstdLevel(
                  Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, level)))
          .as(level)
          .isEqualTo(3);
    }
  }
}
