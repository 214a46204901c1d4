package io.lakestream.catalog;

import io.lakestream.testing.PostgresExtension;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The metadata store contract on a real PostgreSQL server, as several server processes share it.
 * One server for the class, a fresh database for each test.
 */
class PostgresMetadataStoreTest extends MetadataStoreConformanceTest {
  @RegisterExtension static final PostgresExtension postgres = new PostgresExtension();

  @Override
  protected boolean readsWithoutWaiting() {
    return false; // every read crosses the network
  }

  @Override
  protected Database createDatabase() throws SQLException {
    String url = postgres.newDatabaseUrl();
    return () -> JdbcMetadataStore.open(url, postgres.user(), null, 8);
  }
}
