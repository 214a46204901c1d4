package io.lakestream.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.testing.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged server as a user runs it: a separate process started by bin/lakestream. */
class ServerProcessIT {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path temp;

  @Test
  void namespaceSurvivesGracefulRestart() throws Exception {
    Path data = temp.resolve("data");
    Namespace namespace = Namespace.of("analytics", "clicks");
    try (ServerProcess server =
        ServerProcess.startReady(data, temp.resolve("logs"), START_TIMEOUT)) {
      try (RESTCatalog catalog = connect(server)) {
        catalog.createNamespace(Namespace.of("analytics"), new HashMap<>(Map.of("owner", "web")));
        catalog.createNamespace(namespace, new HashMap<>());
        assertThat(catalog.listNamespaces()).containsExactly(Namespace.of("analytics"));
        assertThat(catalog.listNamespaces(Namespace.of("analytics"))).containsExactly(namespace);
      }
      assertThat(server.terminate(Duration.ofSeconds(30))).isZero();
      assertThat(server.stdout()).contains("Lakestream ready").contains("Lakestream stopped");
    }

    try (ServerProcess restarted =
            ServerProcess.startReady(data, temp.resolve("logs"), START_TIMEOUT);
        RESTCatalog catalog = connect(restarted)) {
      assertThat(catalog.listNamespaces()).containsExactly(Namespace.of("analytics"));
      assertThat(catalog.namespaceExists(namespace)).isTrue();
      assertThat(catalog.loadNamespaceMetadata(Namespace.of("analytics")))
          .containsEntry("owner", "web");
      assertThat(restarted.terminate(Duration.ofSeconds(30))).isZero();
    }
  }

  private static RESTCatalog connect(ServerProcess server) {
    RESTCatalog catalog = new RESTCatalog();
    // The client writes no files here; LocalFileIO spares the test a Hadoop classpath.
    catalog.initialize(
        "lakestream", Map.of("uri", server.baseUri(), "io-impl", LocalFileIO.class.getName()));
    return catalog;
  }
}
