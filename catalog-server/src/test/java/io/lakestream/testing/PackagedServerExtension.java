package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One packaged server process ({@link PackagedServer}) per test class, for {@code *IT} classes:
 * register it as a static field,
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PackagedServerExtension SERVER =
 *     PackagedServerExtension.builder().withoutTiering().build();
 * }</pre>
 *
 * <p>The server is ready before the class's {@code @BeforeAll} methods and stopped (SIGKILL if
 * still running), with the catalog client handed out here, after its {@code @AfterAll} methods; its
 * data lives in a scratch directory deleted then, its output in the log directory (by default in
 * that scratch directory too).
 */
public final class PackagedServerExtension implements BeforeAllCallback, AfterAllCallback {
  private final List<String> flags;
  private final Map<String, String> environment;
  private final Duration startTimeout;
  private final Path logDirectory;
  private Path scratch;
  private PackagedServer server;
  private RESTCatalog catalog;

  private PackagedServerExtension(Builder builder) {
    this.flags = List.copyOf(builder.flags);
    this.environment = Map.copyOf(builder.environment);
    this.startTimeout = builder.startTimeout;
    this.logDirectory = builder.logDirectory;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    scratch =
        TestDirectories.create("lakestream-" + context.getRequiredTestClass().getSimpleName());
    server =
        PackagedServer.start(
            scratch.resolve("data"),
            logDirectory != null ? logDirectory : scratch.resolve("logs"),
            flags,
            environment,
            startTimeout);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try (PackagedServer closing = server) {
      if (catalog != null) {
        catalog.close();
      }
    } finally {
      server = null;
      catalog = null;
      TestDirectories.deleteQuietly(scratch);
    }
  }

  /** The server: its ports, process and data directory. */
  public PackagedServer server() {
    return requireNonNull(server, "the server is not running: is the extension registered?");
  }

  /** The running server process: its output, its pid. */
  public ServerProcess process() {
    return server().process();
  }

  public int httpPort() {
    return server().httpPort();
  }

  public int rpcPort() {
    return server().rpcPort();
  }

  public int flightPort() {
    return server().flightPort();
  }

  public String baseUri() {
    return server().baseUri();
  }

  public String flightJdbcUrl() {
    return server().flightJdbcUrl();
  }

  /** An anonymous catalog client, opened on first use and closed with the server. */
  public synchronized RESTCatalog catalog() {
    if (catalog == null) {
      catalog = server().openCatalog();
    }
    return catalog;
  }

  /** How the extension launches the server. */
  public static final class Builder {
    private final List<String> flags = new ArrayList<>();
    private final Map<String, String> environment = new HashMap<>();
    private Duration startTimeout = Duration.ofSeconds(90);
    private Path logDirectory;

    private Builder() {}

    /** Flags after the data directory and ports, such as {@code --tiering-enabled false}. */
    public Builder flags(String... more) {
      flags.addAll(List.of(more));
      return this;
    }

    /** {@code --tiering-enabled false}: no tiering service in the server. */
    public Builder withoutTiering() {
      return flags("--tiering-enabled", "false");
    }

    /** An environment variable of the launcher, such as {@code LAKESTREAM_HEAP}. */
    public Builder environment(String name, String value) {
      environment.put(requireNonNull(name, "name is null"), requireNonNull(value, "value is null"));
      return this;
    }

    /** How long the server may take to be ready (90 s unless set). */
    public Builder startTimeout(Duration timeout) {
      this.startTimeout = requireNonNull(timeout, "timeout is null");
      return this;
    }

    /** Where the server's output goes, kept after the run (a scratch directory unless set). */
    public Builder logDirectory(Path directory) {
      this.logDirectory = requireNonNull(directory, "directory is null");
      return this;
    }

    public PackagedServerExtension build() {
      return new PackagedServerExtension(this);
    }
  }
}
