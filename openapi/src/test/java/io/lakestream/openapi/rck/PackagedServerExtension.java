package io.lakestream.openapi.rck;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.testing.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the packaged Lakestream server ({@code bin/lakestream server} from {@code
 * catalog-server/target/dist}) on fresh ports and a fresh data directory for one test class, and
 * points Apache Iceberg's REST Compatibility Kit at it. Afterwards the server stops and its data
 * directory is deleted; its logs stay in the temporary directory.
 *
 * <p>The kit builds its catalog client from every system property (and {@code CATALOG_*}
 * environment variable), so this sets {@code uri}, {@code warehouse} and the kit's capability flags
 * as system properties before the kit's own {@code @BeforeAll} runs; {@code rck.local=false}, which
 * stops the kit from starting Iceberg's reference server, comes from the build. The flags:
 *
 * <ul>
 *   <li>{@code rck.requires-namespace-create=true}: tables and views need an existing namespace;
 *   <li>{@code rck.supports-serverside-retry=true}: a commit whose requirements still hold after a
 *       concurrent commit is retried by the server (the kit's default);
 *   <li>{@code rck.supports-names-with-dot=true}: namespace and table names may contain dots.
 * </ul>
 *
 * <p>The server runs with {@code catalog.allowed-locations=file:/tmp}: the kit creates tables and
 * views at explicit locations under {@code /tmp}.
 */
public final class PackagedServerExtension implements BeforeAllCallback, AfterAllCallback {
  private static final Map<String, String> KIT_FLAGS =
      Map.of(
          "rck.requires-namespace-create", "true",
          "rck.supports-serverside-retry", "true",
          "rck.supports-names-with-dot", "true",
          "io-impl", LocalFileIO.class.getName(),
          "warehouse", "default");

  private ServerProcess server;
  private Path directory;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    directory = Files.createTempDirectory("lakestream-rck-");
    int httpPort = ServerProcess.freePort();
    server =
        ServerProcess.launchReady(
            directory.resolve("logs"),
            httpPort,
            List.of(
                "--data-dir", directory.resolve("data").toString(),
                "--http-port", Integer.toString(httpPort),
                "--rpc-port", Integer.toString(ServerProcess.freePort()),
                "--flight-port", Integer.toString(ServerProcess.freePort()),
                // The kit places tables and views at explicit locations under /tmp (and its own
                // temporary directories there), outside the warehouse: allowed as an operator
                // would allow a second storage root.
                "--catalog-allowed-locations", "file:/tmp",
                // The kit appends data files at made-up paths (/path/to/data-a.parquet) that lie
                // in no table's location, which a confined server refuses.
                "--catalog-confine-table-files", "false"),
            Map.of(),
            Duration.ofSeconds(60));
    KIT_FLAGS.forEach(System::setProperty);
    System.setProperty("uri", server.baseUri());
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    System.clearProperty("uri");
    KIT_FLAGS.keySet().forEach(System::clearProperty);
    if (server != null) {
      server.close();
    }
    // The server's logs stay for a look after a failure; its data goes.
    deleteTree(directory.resolve("data"));
  }

  /** Deletes a directory and everything under it; nothing when it does not exist. */
  public static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
