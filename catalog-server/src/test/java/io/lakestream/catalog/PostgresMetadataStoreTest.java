package io.lakestream.catalog;

import io.lakestream.testing.TestingPostgres;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The metadata store contract on a real PostgreSQL server, as several server processes share it.
 * One server for the class, a fresh database for each test.
 */
class PostgresMetadataStoreTest extends MetadataStoreConformanceTest {
  private static TestingPostgres postgres;

  @BeforeAll
  static void startPostgres() throws Exception {
    postgres = TestingPostgres.start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Override
  protected boolean readsWithoutWaiting() {
    return false; // every read crosses the network
  }

  @Override
  protected Database createDatabase() throws SQLException {
    String url = postgres.jdbcUrl(postgres.createDatabase());
    return () -> JdbcMetadataStore.open(url, postgres.user(), null, 8);
  }
}
