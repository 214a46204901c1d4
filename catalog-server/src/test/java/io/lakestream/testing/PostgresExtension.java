package io.lakestream.testing;

import java.sql.SQLException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link TestingPostgres} server for a test class, registered as a static field with
 * {@code @RegisterExtension}: started before the class's first test, stopped after its last. Tests
 * take a fresh database from it with {@link #createDatabase()}.
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback {
  private TestingPostgres postgres;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    postgres = TestingPostgres.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (postgres != null) {
      postgres.close();
      postgres = null;
    }
  }

  /** The running server; only between the class's first and last test. */
  public TestingPostgres server() {
    if (postgres == null) {
      throw new IllegalStateException("PostgreSQL runs only while the test class does");
    }
    return postgres;
  }

  /** The JDBC URL of a new, empty database of the server. */
  public String newDatabaseUrl() throws SQLException {
    return server().jdbcUrl(server().createDatabase());
  }

  /** The superuser the tests connect as (no password). */
  public String user() {
    return server().user();
  }
}
