package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.iceberg.exceptions.ServiceFailureException;

/** {@link IdempotencyStore} in the catalog database, beside the {@link JdbcMetadataStore}. */
public final class JdbcIdempotencyStore implements IdempotencyStore {
  private static final TypeReference<Map<String, String>> HEADERS_TYPE = new TypeReference<>() {};

  private final DataSource dataSource;
  private final ObjectMapper json = new ObjectMapper();

  public JdbcIdempotencyStore(JdbcMetadataStore metadataStore) {
    this.dataSource = requireNonNull(metadataStore, "metadataStore is null").dataSource();
  }

  @Override
  public Claim claim(String key, String fingerprint, long nowMillis, long lifetimeMillis) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        Claim claim = claim(connection, key, fingerprint, nowMillis, lifetimeMillis);
        connection.commit();
        return claim;
      } catch (SQLException e) {
        connection.rollback();
        if (isConstraintViolation(e)) {
          // Another process claimed the key between our read and insert.
          return new Existing(fingerprint, Optional.empty());
        }
        throw e;
      }
    } catch (SQLException e) {
      throw new ServiceFailureException(e, "Idempotency store failed: %s", e.getMessage());
    }
  }

  private Claim claim(
      Connection connection, String key, String fingerprint, long nowMillis, long lifetimeMillis)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT fingerprint, status, headers, body, expires_millis FROM lakestream_idempotency"
                + " WHERE idempotency_key = ?")) {
      select.setString(1, key);
      try (ResultSet rows = select.executeQuery()) {
        if (rows.next() && rows.getLong(5) > nowMillis) {
          int status = rows.getInt(2);
          Optional<Outcome> outcome =
              rows.wasNull()
                  ? Optional.empty()
                  : Optional.of(new Outcome(status, headers(rows.getString(3)), rows.getString(4)));
          return new Existing(rows.getString(1), outcome);
        }
      }
    }
    try (PreparedStatement delete =
        connection.prepareStatement(
            "DELETE FROM lakestream_idempotency WHERE idempotency_key = ?")) {
      delete.setString(1, key);
      delete.executeUpdate();
    }
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO lakestream_idempotency (idempotency_key, fingerprint, created_millis,"
                + " expires_millis) VALUES (?, ?, ?, ?)")) {
      insert.setString(1, key);
      insert.setString(2, fingerprint);
      insert.setLong(3, nowMillis);
      insert.setLong(4, nowMillis + lifetimeMillis);
      insert.executeUpdate();
    }
    return new Claimed();
  }

  @Override
  public void complete(String key, Outcome outcome) {
    update(
        "UPDATE lakestream_idempotency SET status = ?, headers = ?, body = ?"
            + " WHERE idempotency_key = ?",
        statement -> {
          statement.setInt(1, outcome.status());
          statement.setString(2, toJson(outcome.headers()));
          statement.setString(3, outcome.body());
          statement.setString(4, key);
        });
  }

  @Override
  public void release(String key) {
    update(
        "DELETE FROM lakestream_idempotency WHERE idempotency_key = ? AND status IS NULL",
        statement -> statement.setString(1, key));
  }

  @Override
  public int purgeExpired(long nowMillis) {
    return update(
        "DELETE FROM lakestream_idempotency WHERE expires_millis <= ?",
        statement -> statement.setLong(1, nowMillis));
  }

  private interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  private int update(String sql, Binder binder) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw new ServiceFailureException(e, "Idempotency store failed: %s", e.getMessage());
    }
  }

  private String toJson(Map<String, String> headers) {
    try {
      return json.writeValueAsString(headers);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private Map<String, String> headers(String text) {
    if (text == null) {
      return Map.of();
    }
    try {
      return json.readValue(text, HEADERS_TYPE);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Corrupt idempotency record", e);
    }
  }

  private static boolean isConstraintViolation(SQLException e) {
    String state = e.getSQLState();
    return (state != null && state.startsWith("23"))
        || (e.getMessage() != null && e.getMessage().contains("SQLITE_CONSTRAINT"));
  }
}
