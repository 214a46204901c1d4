package io.lakestream.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.metrics.PrometheusText.Family;
import io.lakestream.metrics.PrometheusText.Sample;
import io.lakestream.store.StreamTable;
import io.lakestream.store.TableResolver;
import io.lakestream.store.kv.KvConfig;
import io.lakestream.store.kv.KvManager;
import io.lakestream.store.log.LogConfig;
import io.lakestream.store.log.LogManager;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream store's metrics over a real log and KV manager and a resolver of hand-made tables:
 * label values that hold the characters the exposition format escapes, and tablets of tables the
 * catalog no longer knows.
 */
class ServerMetricsTest {
  @TempDir Path data;

  /** The tables of a fixed map, by id. */
  private record FixedTables(Map<String, StreamTable> byId) implements TableResolver {
    @Override
    public Optional<StreamTable> resolve(String warehouse, List<String> namespace, String name) {
      return Optional.empty();
    }

    @Override
    public Optional<StreamTable> resolveById(String tableId) {
      return Optional.ofNullable(byId.get(tableId));
    }
  }

  private static StreamTable table(String id, List<String> namespace, String name) {
    return new StreamTable(
        id, "default", namespace, name, "log", 1, 0, Set.of(0), "{}", Map.of(), List.of(),
        List.of(), Map.of(), List.of(), Map.of(), Map.of());
  }

  @Test
  void labelValuesAreEscapedAndTabletsOfUnknownTablesLeftOut() throws Exception {
    String partition = "region=\"eu\\west\"\nline";
    try (LogManager logs =
            new LogManager(data.resolve("streams"), LogConfig.defaults(), Clock.systemUTC());
        KvManager kvs = new KvManager(data.resolve("kv"), KvConfig.defaults(), Clock.systemUTC())) {
      logs.tablet("t-1", partition, 3);
      logs.tablet("t-dropped", "", 0);
      TableResolver tables =
          new FixedTables(
              Map.of("t-1", table("t-1", List.of("we\"ird", "back\\slash"), "new\nline")));
      ServerMetrics metrics = new ServerMetrics();
      metrics.registerStreamStore(logs, kvs, () -> tables, data);

      String text = new String(metrics.scrape(), StandardCharsets.UTF_8);
      assertThat(text)
          .contains("namespace=\"we\\\"ird.back\\\\slash\"")
          .contains("table=\"new\\nline\"")
          .contains("partition=\"region=\\\"eu\\\\west\\\"\\nline\"");
      Map<String, Family> scrape = PrometheusText.parse(text);
      List<Sample> offsets = scrape.get("lakestream_log_end_offset").samples();
      assertThat(offsets).hasSize(1);
      assertThat(offsets.get(0).labels())
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "warehouse", "default",
                  "namespace", "we\"ird.back\\slash",
                  "table", "new\nline",
                  "partition", partition,
                  "bucket", "3"));
      assertThat(offsets.get(0).value()).isZero();
      assertThat(scrape.get("lakestream_log_appended_rows_total").samples()).hasSize(1);
      // No primary-key bucket is open (a family without samples is left out), and RocksDB has not
      // been loaded.
      assertThat(scrape).doesNotContainKey("lakestream_kv_lookup_duration_seconds");
      assertThat(scrape.get("lakestream_kv_block_cache_usage_bytes").samples().get(0).value())
          .isZero();
      assertThat(scrape.get("lakestream_data_filesystem_available_bytes").samples().get(0).value())
          .isPositive();
    }
  }

  @Test
  void withoutAResolverTheStoreHasNoPerBucketSeries() throws Exception {
    try (LogManager logs =
            new LogManager(data.resolve("streams"), LogConfig.defaults(), Clock.systemUTC());
        KvManager kvs = new KvManager(data.resolve("kv"), KvConfig.defaults(), Clock.systemUTC())) {
      logs.tablet("t-1", "", 0);
      ServerMetrics metrics = new ServerMetrics();
      metrics.registerStreamStore(logs, kvs, () -> null, data);
      Map<String, Family> scrape =
          PrometheusText.parse(new String(metrics.scrape(), StandardCharsets.UTF_8));
      assertThat(scrape).doesNotContainKey("lakestream_log_end_offset");
      assertThat(scrape).containsKey("lakestream_data_filesystem_size_bytes");
    }
  }
}
