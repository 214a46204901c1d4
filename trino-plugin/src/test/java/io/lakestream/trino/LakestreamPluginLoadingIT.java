package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.TieredTables;
import io.lakestream.testing.TieredTables.Expected;
import io.trino.spi.connector.Connector;
import io.trino.testing.DistributedQueryRunner;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The packaged plugin directory ({@code mvn package}: {@code
 * target/lakestream-trino-plugin-VERSION/}) is a working Trino plugin: Trino's plugin manager loads
 * it from {@code plugin.dir} with its own plugin class loader (not the test's class path, which
 * holds the plugin's classes too), a {@code lakestream} catalog made from it serves union reads,
 * and the directory holds none of the jars the Trino server provides to every plugin.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamPluginLoadingIT {
  /** Trino's class loader for the jars of one plugin directory. */
  private static final String TRINO_PLUGIN_CLASS_LOADER = "io.trino.server.PluginClassLoader";

  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(60);

  private final SharedTrino shared;
  private TieredTables tables;

  LakestreamPluginLoadingIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void connect() {
    tables = TieredTables.connect(shared.server().baseUri(), shared.rpcPort());
  }

  @AfterAll
  void close() {
    if (tables != null) {
      tables.close();
    }
  }

  /**
   * Proves that the {@code lakestream} catalog's connector is a class of the packaged plugin's jar,
   * loaded by Trino's plugin class loader, not the class of the same name on the test class path.
   */
  @Test
  void catalogConnectorComesFromThePackagedPluginDirectory() throws Exception {
    Connector connector =
        ((DistributedQueryRunner) shared.trino()).getCoordinator().getConnector(LAKESTREAM_CATALOG);
    Class<?> connectorClass = connector.getClass();
    ClassLoader applicationClassLoader = LakestreamPluginLoadingIT.class.getClassLoader();

    assertThat(connectorClass.getName()).isEqualTo("io.lakestream.trino.LakestreamConnector");
    assertThat(connectorClass).isNotSameAs(LakestreamConnector.class);
    assertThat(connectorClass.getClassLoader()).isNotSameAs(applicationClassLoader);
    assertThat(connectorClass.getClassLoader().getClass().getName())
        .isEqualTo(TRINO_PLUGIN_CLASS_LOADER);
    assertThat(LakestreamConnector.class.getClassLoader()).isSameAs(applicationClassLoader);

    Path codeSource =
        Path.of(connectorClass.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path pluginDirectory = PackagedPlugin.directory().toRealPath();
    assertThat(codeSource.toRealPath().getParent()).isEqualTo(pluginDirectory);
    assertThat(codeSource.getFileName().toString())
        .startsWith("lakestream-trino-plugin-")
        .endsWith(".jar");

    // The embedded Iceberg connector too comes from the plugin's own jars.
    Class<?> icebergFactory =
        connectorClass
            .getClassLoader()
            .loadClass("io.trino.plugin.iceberg.IcebergConnectorFactory");
    assertThat(icebergFactory.getClassLoader()).isSameAs(connectorClass.getClassLoader());
    assertThat(jarDirectory(icebergFactory)).isEqualTo(pluginDirectory);
  }

  /**
   * Proves that a log table read through the packaged plugin returns every row written through the
   * client, those still in the log and those already tiered, each once.
   */
  @Test
  void packagedPluginServesUnionReads() {
    TieredTables.LogTable table = tables.createLogTable("packaged_plugin_events", false);
    table.append(3_000);
    table.awaitTiered(TIERING_TIMEOUT);
    table.append(2_000);
    assertReads(table.expectedQueries(LAKESTREAM_CATALOG));
  }

  /**
   * Proves that the plugin directory holds no jar of what the Trino server provides to plugins (a
   * second copy would split the SPI's classes between two class loaders) and one version of each
   * library the union read depends on.
   */
  @Test
  void pluginDirectoryHoldsNoServerProvidedJarAndOneVersionOfEachLibrary() throws IOException {
    List<String> jars;
    try (Stream<Path> files = Files.list(PackagedPlugin.directory())) {
      jars = files.map(file -> file.getFileName().toString()).sorted().toList();
    }
    assertThat(jars).allMatch(name -> name.endsWith(".jar"));
    assertThat(jars)
        .noneMatch(
            name ->
                name.startsWith("trino-spi-")
                    || name.startsWith("slice-")
                    || name.startsWith("jackson-annotations-")
                    || name.startsWith("opentelemetry-api-1")
                    || name.startsWith("opentelemetry-context-"));
    for (String library :
        List.of(
            "lakestream-trino-plugin-",
            "lakestream-client-",
            "lakestream-lake-",
            "trino-iceberg-",
            "iceberg-core-",
            "arrow-vector-",
            "arrow-memory-core-",
            "parquet-column-",
            "guava-",
            "jackson-databind-")) {
      assertThat(jars).as(library).filteredOn(name -> name.startsWith(library)).hasSize(1);
    }
  }

  private static Path jarDirectory(Class<?> type) throws URISyntaxException, IOException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
        .toRealPath()
        .getParent();
  }

  private void assertReads(List<Expected> queries) {
    for (Expected query : queries) {
      TieredTables.assertRows(
          shared.rows(query.sql()).stream()
              .map(row -> row.stream().map(TieredTables::normalize).toList())
              .toList(),
          query);
    }
  }
}
