package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tiering service embedded in the server: it finds log tables in the catalog, tiers each at its
 * interval, and a table whose rounds fail does not hold up the others.
 */
class TieringServiceTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  @TempDir static Path data;
  private static EmbeddedLakestream lakestream;
  private static RESTCatalog catalog;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.discovery-interval", "1s"));
    catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("svc"), new HashMap<>());
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static TablePath create(String name, Map<String, String> extra) {
    Map<String, String> properties =
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2"));
    properties.putAll(extra);
    catalog.createTable(
        TableIdentifier.of("svc", name), SCHEMA, PartitionSpec.unpartitioned(), properties);
    return TablePath.of("svc." + name);
  }

  private static <T> T await(String what, Supplier<Optional<T>> check) {
    return TieringFixture.awaitValue(what, Duration.ofSeconds(30), check);
  }

  private static List<Long> lakeIds(String name) {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("svc", name))).build()) {
      records.forEach(record -> ids.add((Long) record.getField("id")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ids.sort(null);
    return ids;
  }

  @Test
  void tiersEveryLogTableAtItsIntervalAndAFailingTableDoesNotStopTheOthers() {
    TablePath broken = create("broken", Map.of("lakestream.tiering.interval", "1s"));
    // A snapshot whose offsets cannot be read makes every round of this table fail.
    catalog
        .loadTable(TableIdentifier.of("svc", "broken"))
        .newFastAppend()
        .set(TieredOffsets.SUMMARY_KEY, "not json")
        .commit();
    TablePath steady = create("steady", Map.of("lakestream.tiering.interval", "1s"));
    TablePath slow = create("slow", Map.of());
    try (AppendWriter writer = lakestream.connection().table(steady).newAppendWriter()) {
      for (long id = 0; id < 200; id++) {
        writer.append(id, "row " + id);
      }
      writer.flush();
    }

    TieringService service = lakestream.server().tiering().orElseThrow();
    List<Long> expected = new ArrayList<>();
    for (long id = 0; id < 200; id++) {
      expected.add(id);
    }
    await(
        "the steady table's rows in its Iceberg table",
        () -> Optional.of(lakeIds("steady")).filter(ids -> ids.size() >= 200));
    assertThat(lakeIds("steady")).isEqualTo(expected);
    String error =
        await(
            "a failed round of the broken table",
            () -> service.state(broken).map(TieringService.TableState::lastError));
    assertThat(error).contains("Invalid lakestream.offsets");
    assertThat(service.state(slow).orElseThrow().interval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(service.state(steady).orElseThrow().lastError()).isNull();

    // More rows arrive and are tiered by a later round, each once.
    try (AppendWriter writer = lakestream.connection().table(steady).newAppendWriter()) {
      for (long id = 200; id < 250; id++) {
        writer.append(id, "row " + id);
        expected.add(id);
      }
      writer.flush();
    }
    await(
        "the later rows in the Iceberg table",
        () -> Optional.of(lakeIds("steady")).filter(ids -> ids.size() >= 250));
    assertThat(lakeIds("steady")).isEqualTo(expected);
  }

  @Test
  void anIntervalBelowOneSecondIsRefused() {
    assertThatThrownBy(() -> create("hasty", Map.of("lakestream.tiering.interval", "500ms")))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("lakestream.tiering.interval '500ms'");
  }
}
