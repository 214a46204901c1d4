package io.lakestream.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * {@link SpareDatabases} hands out databases that are separate, unused and opened with the given
 * settings, whether a spare was ready or not.
 */
class SpareDatabasesTest {
  private static Properties settings() {
    Properties settings = new Properties();
    settings.setProperty("threads", "1");
    settings.setProperty("memory_limit", "64MB");
    return settings;
  }

  private static String setting(Connection database, String name) throws SQLException {
    try (Statement statement = database.createStatement();
        ResultSet result = statement.executeQuery("SELECT current_setting('" + name + "')")) {
      result.next();
      return result.getString(1);
    }
  }

  @Test
  void everyDatabaseIsFreshSeparateAndHasTheSettings() throws SQLException {
    List<Connection> taken = new ArrayList<>();
    try (SpareDatabases databases = new SpareDatabases(settings(), 2)) {
      for (int i = 0; i < 5; i++) {
        Connection database = databases.take();
        taken.add(database);
        assertThat(setting(database, "threads")).isEqualTo("1");
        assertThat(setting(database, "memory_limit")).contains("MiB");
        try (Statement statement = database.createStatement();
            ResultSet tables = statement.executeQuery("SELECT count(*) FROM duckdb_tables()")) {
          tables.next();
          assertThat(tables.getLong(1)).as("tables in database %s", i).isZero();
        }
        try (Statement statement = database.createStatement()) {
          statement.execute("CREATE TABLE marker AS SELECT " + i + " AS taken");
        }
      }
    } finally {
      for (Connection database : taken) {
        database.close();
      }
    }
  }

  @Test
  void takenDatabasesOutliveThePool() throws SQLException {
    Connection taken;
    try (SpareDatabases databases = new SpareDatabases(settings(), 1)) {
      taken = databases.take();
    }
    try (taken) {
      assertThat(setting(taken, "threads")).isEqualTo("1");
    }
  }

  @Test
  void withoutSparesEachDatabaseIsOpenedOnDemand() throws SQLException {
    try (SpareDatabases databases = new SpareDatabases(settings(), 0);
        Connection first = databases.take();
        Connection second = databases.take();
        Statement statement = first.createStatement()) {
      statement.execute("CREATE TABLE only_in_first (x INTEGER)");
      try (Statement other = second.createStatement()) {
        assertThatThrownBy(() -> other.executeQuery("SELECT * FROM only_in_first"))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("only_in_first");
      }
    }
    assertThatThrownBy(() -> new SpareDatabases(settings(), -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
