package io.lakestream.flight.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SpareDatabases} hands out databases that are separate, unused and opened with the given
 * settings, whether a spare was ready or not.
 */
class SpareDatabasesTest {
  @TempDir Path spill;

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
    List<SpareDatabases.Spare> taken = new ArrayList<>();
    List<String> spillDirectories = new ArrayList<>();
    try (SpareDatabases databases = new SpareDatabases(settings(), 2, spill)) {
      for (int i = 0; i < 5; i++) {
        SpareDatabases.Spare spare = databases.take();
        taken.add(spare);
        Connection database = spare.connection();
        spillDirectories.add(setting(database, "temp_directory"));
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
      for (SpareDatabases.Spare database : taken) {
        database.close();
      }
    }
    assertThat(spillDirectories)
        .as("each spills into a directory of its own")
        .doesNotHaveDuplicates();
    assertThat(spillDirectories)
        .allSatisfy(directory -> assertThat(directory).startsWith(spill.toString()));
  }

  @Test
  void takenDatabasesOutliveThePool() throws SQLException {
    SpareDatabases.Spare taken;
    try (SpareDatabases databases = new SpareDatabases(settings(), 1, spill)) {
      taken = databases.take();
    }
    try (taken) {
      assertThat(setting(taken.connection(), "threads")).isEqualTo("1");
    }
  }

  @Test
  void withoutSparesEachDatabaseIsOpenedOnDemand() throws SQLException {
    try (SpareDatabases databases = new SpareDatabases(settings(), 0, spill);
        SpareDatabases.Spare first = databases.take();
        SpareDatabases.Spare second = databases.take();
        Statement statement = first.connection().createStatement()) {
      statement.execute("CREATE TABLE only_in_first (x INTEGER)");
      try (Statement other = second.connection().createStatement()) {
        assertThatThrownBy(() -> other.executeQuery("SELECT * FROM only_in_first"))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("only_in_first");
      }
    }
    assertThatThrownBy(() -> new SpareDatabases(settings(), -1, spill))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
