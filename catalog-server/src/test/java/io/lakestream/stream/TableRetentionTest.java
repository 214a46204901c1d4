package io.lakestream.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.testing.LakestreamExtension;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A table's own log retention ({@code lakestream.log.retention}): set, shown, and checked. */
class TableRetentionTest {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().namespaces("ret").build();

  private static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

  @Test
  void aTableKeepsTheRetentionItWasCreatedWith() {
    TablePath path = TablePath.of("ret.hourly");
    LAKESTREAM
        .connection()
        .admin()
        .createTable(
            path, TableDescriptor.logTable(SCHEMA, 1).withLogRetention(Duration.ofHours(1)));
    assertThat(LAKESTREAM.connection().admin().describe(path).properties())
        .containsEntry("lakestream.log.retention", "3600000ms");
  }

  @Test
  void aRetentionThatIsNotADurationOfAtLeastASecondIsABadRequest() {
    for (String bad : new String[] {"forever", "-5m", "500ms", "0s"}) {
      assertThatThrownBy(
              () ->
                  LAKESTREAM
                      .catalog()
                      .createTable(
                          TableIdentifier.of("ret", "bad"),
                          SCHEMA,
                          PartitionSpec.unpartitioned(),
                          Map.of(
                              "lakestream.kind", "log",
                              "lakestream.buckets", "1",
                              "lakestream.log.retention", bad)))
          .as(bad)
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("lakestream.log.retention")
          .hasMessageContaining(bad);
    }
    assertThat(LAKESTREAM.catalog().tableExists(TableIdentifier.of("ret", "bad"))).isFalse();
  }
}
