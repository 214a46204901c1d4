package io.lakestream.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The catalog database's schema, as an ordered list of migrations. Migration {@code n} takes the
 * schema from version {@code n} to {@code n + 1}; a released migration is never edited, only
 * followed by new ones. Each migration runs in its own transaction together with the version bump,
 * so a crash mid-migration leaves the previous version intact.
 */
final class MetadataSchema {
  private static final List<List<String>> MIGRATIONS =
      List.of(
          List.of(
              "CREATE TABLE lakestream_warehouses ("
                  + " warehouse VARCHAR(255) NOT NULL PRIMARY KEY,"
                  + " location VARCHAR(2048) NOT NULL)",
              "CREATE TABLE lakestream_namespaces ("
                  + " warehouse VARCHAR(255) NOT NULL,"
                  + " namespace VARCHAR(2048) NOT NULL,"
                  + " parent VARCHAR(2048) NOT NULL,"
                  + " properties TEXT NOT NULL,"
                  + " PRIMARY KEY (warehouse, namespace))",
              "CREATE INDEX lakestream_namespaces_parent ON lakestream_namespaces (warehouse,"
                  + " parent)",
              "CREATE TABLE lakestream_entities ("
                  + " warehouse VARCHAR(255) NOT NULL,"
                  + " namespace VARCHAR(2048) NOT NULL,"
                  + " name VARCHAR(1024) NOT NULL,"
                  + " kind VARCHAR(16) NOT NULL,"
                  + " metadata_location VARCHAR(4096) NOT NULL,"
                  + " previous_metadata_location VARCHAR(4096),"
                  + " PRIMARY KEY (warehouse, namespace, name))"),
          List.of(
              "CREATE TABLE lakestream_idempotency ("
                  + " idempotency_key VARCHAR(255) NOT NULL PRIMARY KEY,"
                  + " fingerprint VARCHAR(128) NOT NULL,"
                  + " status INTEGER,"
                  + " headers TEXT,"
                  + " body TEXT,"
                  + " created_millis BIGINT NOT NULL,"
                  + " expires_millis BIGINT NOT NULL)",
              "CREATE INDEX lakestream_idempotency_expiry ON lakestream_idempotency"
                  + " (expires_millis)"),
          List.of(
              "CREATE TABLE lakestream_tiered_offsets ("
                  + " table_uuid VARCHAR(64) NOT NULL PRIMARY KEY,"
                  + " table_path VARCHAR(4096) NOT NULL,"
                  + " snapshot_id BIGINT NOT NULL,"
                  + " sequence_number BIGINT NOT NULL,"
                  + " offsets TEXT NOT NULL,"
                  + " updated_millis BIGINT NOT NULL)"));

  /** The PostgreSQL advisory lock taken while creating the version table ("LAKESTRE"). */
  private static final long CREATE_LOCK_KEY = 0x4C414B4553545245L;

  private MetadataSchema() {}

  /** The schema version this build writes. */
  static int latestVersion() {
    return MIGRATIONS.size();
  }

  /**
   * Brings the database to the latest version. Safe to call from several processes at once: the
   * version row is re-read inside each migration's transaction and a losing process finds the work
   * done.
   *
   * @throws IllegalStateException if the database was written by a newer Lakestream
   */
  static void migrate(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      boolean postgres =
          connection.getMetaData().getDatabaseProductName().equalsIgnoreCase("PostgreSQL");
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        if (postgres) {
          // Concurrent CREATE TABLE IF NOT EXISTS of one table can fail on PostgreSQL's catalog
          // (pg_type) unique index; the lock, held until commit, makes the second one find it.
          statement.execute("SELECT pg_advisory_xact_lock(" + CREATE_LOCK_KEY + ")");
        }
        statement.execute(
            "CREATE TABLE IF NOT EXISTS lakestream_schema_version (version INTEGER NOT NULL)");
        connection.commit();
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      }
      while (true) {
        connection.setAutoCommit(false);
        if (postgres) {
          try (Statement statement = connection.createStatement()) {
            statement.execute("LOCK TABLE lakestream_schema_version IN EXCLUSIVE MODE");
          }
        }
        int version = currentVersion(connection);
        if (version > latestVersion()) {
          connection.rollback();
          throw new IllegalStateException(
              "the catalog database has schema version "
                  + version
                  + ", newer than this server's "
                  + latestVersion()
                  + "; upgrade Lakestream");
        }
        if (version == latestVersion()) {
          connection.commit();
          connection.setAutoCommit(true);
          return;
        }
        try (Statement statement = connection.createStatement()) {
          for (String sql : MIGRATIONS.get(version)) {
            statement.execute(sql);
          }
          statement.execute("DELETE FROM lakestream_schema_version");
          statement.execute(
              "INSERT INTO lakestream_schema_version (version) VALUES (" + (version + 1) + ")");
          connection.commit();
        } catch (SQLException e) {
          connection.rollback();
          throw e;
        }
      }
    }
  }

  private static int currentVersion(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT version FROM lakestream_schema_version")) {
      return rows.next() ? rows.getInt(1) : 0;
    }
  }
}
