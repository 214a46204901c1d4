package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.server.LakestreamServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One server in the test's JVM per test class, on free ports, with its data in a scratch directory
 * of its own: register it as a static field,
 *
 * <pre>{@code
 * @RegisterExtension
 * static final LakestreamExtension LAKESTREAM =
 *     LakestreamExtension.builder()
 *         .oauth2("writer:w-secret,reader:r-secret", "writer:write:default,reader:read:default")
 *         .catalogCredential("writer:w-secret")
 *         .build();
 * }</pre>
 *
 * <p>The server is started before the class's {@code @BeforeAll} methods and closed, with the
 * catalog client and connection handed out here and the data directory, after its {@code @AfterAll}
 * methods. Test and lifecycle methods may also take the {@link LakestreamServer}, the {@link
 * RESTCatalog} or the anonymous {@link Connection} as parameters. Not thread safe for starting; the
 * accessors may be used from any thread once started.
 */
public final class LakestreamExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  private final Map<String, String> settings;
  private final String catalogCredential;
  private final List<String> namespaces;
  private Path dataDir;
  private LakestreamServer server;
  private RESTCatalog catalog;
  private Connection connection;

  private LakestreamExtension(Builder builder) {
    this.settings = Map.copyOf(builder.settings);
    this.catalogCredential = builder.catalogCredential;
    this.namespaces = List.copyOf(builder.namespaces);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    dataDir =
        TestDirectories.create("lakestream-" + context.getRequiredTestClass().getSimpleName());
    server = EmbeddedLakestream.startServer(dataDir, settings);
    catalog = RestCatalogs.open(base(), catalogCredential);
    for (String namespace : namespaces) {
      catalog.createNamespace(Namespace.of(namespace), new HashMap<>());
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try (LakestreamServer closingServer = server) {
      if (connection != null) {
        connection.close();
      }
      if (catalog != null) {
        catalog.close();
      }
    } finally {
      server = null;
      catalog = null;
      connection = null;
      TestDirectories.deleteQuietly(dataDir);
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == LakestreamServer.class || type == RESTCatalog.class || type == Connection.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    if (type == LakestreamServer.class) {
      return server();
    }
    if (type == RESTCatalog.class) {
      return catalog();
    }
    return connection();
  }

  public LakestreamServer server() {
    return requireNonNull(server, "the server is not running: is the extension registered?");
  }

  /** The server's data directory. */
  public Path dataDir() {
    return requireNonNull(dataDir, "the server is not running");
  }

  /** The server's HTTP base URI, such as {@code http://127.0.0.1:40123}. */
  public String base() {
    return "http://127.0.0.1:" + server().httpPort();
  }

  /** The Flight SQL JDBC URL of the server, without credentials. */
  public String flightJdbcUrl() {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + server().flightPort() + "?useEncryption=false";
  }

  /** A catalog client, signed in with the builder's catalog credential if one was given. */
  public RESTCatalog catalog() {
    return requireNonNull(catalog, "the server is not running");
  }

  /** An anonymous stream RPC connection, opened on first use and closed with the server. */
  public synchronized Connection connection() {
    if (connection == null) {
      connection = connect(null);
    }
    return connection;
  }

  /** A new stream RPC connection with {@code token} (null: anonymous); the caller closes it. */
  public Connection connect(String token) {
    return Connection.open("127.0.0.1", server().rpcPort(), token);
  }

  /** A bearer token for {@code client} from the server's token endpoint (oauth2 mode). */
  public String token(String client, String secret) throws Exception {
    return CatalogTokens.clientCredentials(base(), client, secret);
  }

  /** What the extension starts: settings over the embedded defaults, and the catalog's sign-in. */
  public static final class Builder {
    private final Map<String, String> settings = new HashMap<>();
    private String catalogCredential;
    private final List<String> namespaces = new ArrayList<>();

    private Builder() {}

    /** A server setting (a key of {@code ServerConfig}, such as {@code http.max-request-size}). */
    public Builder setting(String key, String value) {
      settings.put(requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
      return this;
    }

    /**
     * {@code auth.mode=oauth2} with these {@code auth.clients} ({@code client:secret,...}) and
     * {@code auth.grants} ({@code client:read|write:namespace,...}).
     */
    public Builder oauth2(String clients, String grants) {
      return setting("auth.mode", "oauth2")
          .setting("auth.clients", clients)
          .setting("auth.grants", grants);
    }

    /** The {@code client:secret} the extension's catalog client signs in with. */
    public Builder catalogCredential(String credential) {
      this.catalogCredential = requireNonNull(credential, "credential is null");
      return this;
    }

    /** Namespaces the extension's catalog client creates once the server is up. */
    public Builder namespaces(String... names) {
      namespaces.addAll(List.of(names));
      return this;
    }

    public LakestreamExtension build() {
      return new LakestreamExtension(this);
    }
  }
}
