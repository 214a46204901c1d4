package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.iceberg.exceptions.ServiceFailureException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link IdempotencyStore} in the catalog database, beside the {@link JdbcMetadataStore}, whose
 * write transactions record the claims ({@link #runClaiming}).
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
  private static final TypeReference<Map<String, String>> HEADERS_TYPE = new TypeReference<>() {};

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String COMPLETE_CLAIM =
      "UPDATE lakestream_idempotency SET status = ?, headers = ?, body = ?"
          + " WHERE idempotency_key = ? AND fingerprint = ? AND status IS NULL";
  private static final String FIND =
      "SELECT fingerprint, status, headers, body FROM lakestream_idempotency"
          + " WHERE idempotency_key = ? AND expires_millis > ?";
  private static final String INSERT_CLAIM =
      "INSERT INTO lakestream_idempotency (idempotency_key, fingerprint, status, headers, body,"
          + " created_millis, expires_millis) VALUES (?, ?, ?, ?, ?, ?, ?)";
  private static final String DELETE_EXPIRED_KEY =
      "DELETE FROM lakestream_idempotency WHERE idempotency_key = ? AND expires_millis <= ?";
  private static final String INSERT_COMPLETED =
      "INSERT INTO lakestream_idempotency (idempotency_key, fingerprint, status,"
          + " headers, body, created_millis, expires_millis)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING";

  private final DataSource dataSource;
  private final StatementCache statements;
  private final boolean postgres;
  private final Lock writeLock;
  private final Queue<Completion> completions = new ConcurrentLinkedQueue<>();

  public JdbcIdempotencyStore(JdbcMetadataStore metadataStore) {
    this.dataSource = requireNonNull(metadataStore, "metadataStore is null").dataSource();
    this.statements = metadataStore.statements();
    this.postgres = metadataStore.postgres();
    this.writeLock = metadataStore.writeLock();
  }

  @Override
  public Optional<Existing> find(String key, long nowMillis) {
    try (Connection connection = dataSource.getConnection()) {
      PreparedStatement select = statements.get(connection, FIND);
      select.setString(1, key);
      select.setLong(2, nowMillis);
      try (ResultSet rows = select.executeQuery()) {
        if (!rows.next()) {
          return Optional.empty();
        }
        int status = rows.getInt(2);
        Optional<Outcome> outcome =
            rows.wasNull()
                ? Optional.empty()
                : Optional.of(new Outcome(status, headers(rows.getString(3)), rows.getString(4)));
        return Optional.of(new Existing(rows.getString(1), outcome));
      }
    } catch (SQLException e) {
      throw new ServiceFailureException(e, "Idempotency store failed: %s", e.getMessage());
    }
  }

  @Override
  public <T> T runClaiming(IdempotencyClaim claim, Supplier<T> work) {
    return ScopedValue.where(IdempotencyClaim.CURRENT, claim).call(work::get);
  }

  /**
   * Records a claim inside the caller's transaction, completed with {@code answer} unless that is
   * null; an expired record of the key gives way.
   *
   * @throws KeyClaimedException if the key has an unexpired record
   */
  static void insertClaim(
      Connection connection, StatementCache statements, IdempotencyClaim claim, Outcome answer)
      throws SQLException {
    deleteExpired(statements.get(connection, DELETE_EXPIRED_KEY), claim);
    try {
      PreparedStatement insert = statements.get(connection, INSERT_CLAIM);
      insert.setString(1, claim.key());
      insert.setString(2, claim.fingerprint());
      if (answer == null) {
        insert.setNull(3, Types.INTEGER);
        insert.setNull(4, Types.VARCHAR);
        insert.setNull(5, Types.VARCHAR);
      } else {
        insert.setInt(3, answer.status());
        insert.setString(4, toJson(answer.headers()));
        insert.setString(5, answer.body());
      }
      insert.setLong(6, claim.createdMillis());
      insert.setLong(7, claim.expiresMillis());
      insert.executeUpdate();
    } catch (SQLException e) {
      if (isConstraintViolation(e)) {
        throw new KeyClaimedException(claim.key());
      }
      throw e;
    }
  }

  private static void deleteExpired(PreparedStatement delete, IdempotencyClaim claim)
      throws SQLException {
    delete.setString(1, claim.key());
    delete.setLong(2, claim.createdMillis());
    delete.executeUpdate();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Completions are group-committed: each is queued, and whoever next holds the write lock
   * stores every queued completion in one transaction. On SQLite, completions that arrive while a
   * transaction holds the lock (a commit, or another batch) therefore share one fsync of the log
   * instead of taking one each; each returns once its own batch is durable.
   *
   * <p>A batch of nothing but unrecorded claims (refused commits, mostly) commits without waiting
   * for the disk: SQLite's {@code synchronous=NORMAL}, PostgreSQL's {@code synchronous_commit=off}.
   * Both keep the database consistent and make the batch durable with the next durable commit;
   * until then a machine crash may lose it, which the contract allows for such records. Concurrent
   * writers that lose races then do not queue their refusals' fsyncs in front of the next commit.
   */
  @Override
  public boolean complete(IdempotencyClaim claim, Outcome outcome) {
    Completion mine = new Completion(claim, outcome, new CompletableFuture<>());
    completions.add(mine);
    writeLock.lock();
    try {
      if (!mine.stored().isDone()) {
        storeQueuedCompletions();
      }
    } finally {
      writeLock.unlock();
    }
    try {
      return mine.stored().join();
    } catch (CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }

  /** An outcome waiting to be stored, and whether it was (false: another request has the key). */
  private record Completion(
      IdempotencyClaim claim, Outcome outcome, CompletableFuture<Boolean> stored) {}

  private void storeQueuedCompletions() {
    List<Completion> batch = new ArrayList<>();
    for (Completion next = completions.poll(); next != null; next = completions.poll()) {
      batch.add(next);
    }
    if (batch.isEmpty()) {
      return; // another thread took this one's completion into its batch
    }
    List<Boolean> stored = new ArrayList<>(batch.size());
    boolean changedNothing = batch.stream().noneMatch(completion -> completion.claim().recorded());
    try {
      Connection connection = dataSource.getConnection();
      boolean relaxed = changedNothing && !postgres;
      boolean returnToPool = true;
      try {
        if (relaxed) {
          execute(connection, "PRAGMA synchronous = NORMAL");
        }
        storeBatch(connection, batch, stored, changedNothing && postgres);
      } finally {
        if (relaxed) {
          returnToPool = restoreFullSynchronous(connection);
        }
        if (returnToPool) {
          connection.close();
        }
      }
    } catch (SQLException | RuntimeException e) {
      RuntimeException failure =
          e instanceof SQLException
              ? new ServiceFailureException(e, "Idempotency store failed: %s", e.getMessage())
              : (RuntimeException) e;
      batch.forEach(completion -> completion.stored().completeExceptionally(failure));
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).stored().complete(stored.get(i));
    }
  }

  /**
   * Puts the connection back to the pool's durability (outside a transaction, where SQLite allows
   * the change). A connection that cannot go back is evicted: returns false, and it is closed.
   */
  private boolean restoreFullSynchronous(Connection connection) throws SQLException {
    try {
      connection.setAutoCommit(true);
      execute(connection, "PRAGMA synchronous = FULL");
      return true;
    } catch (SQLException e) {
      LOG.warn("Evicting a catalog database connection left at synchronous=NORMAL", e);
      if (dataSource instanceof HikariDataSource pool) {
        pool.evictConnection(connection);
        return false;
      }
      connection.close();
      throw e;
    }
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private void storeBatch(
      Connection connection,
      List<Completion> batch,
      List<Boolean> stored,
      boolean asynchronousCommit)
      throws SQLException {
    connection.setAutoCommit(false);
    try {
      if (asynchronousCommit) {
        execute(connection, "SET LOCAL synchronous_commit = off");
      }
      for (Completion completion : batch) {
        stored.add(store(completion, connection, statements));
      }
      connection.commit();
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    }
  }

  /**
   * Stores one completion: a recorded claim becomes completed; an unrecorded one is inserted
   * completed unless the key has an unexpired record.
   */
  private static boolean store(
      Completion completion, Connection connection, StatementCache statements) throws SQLException {
    IdempotencyClaim claim = completion.claim();
    Outcome outcome = completion.outcome();
    if (claim.recorded()) {
      PreparedStatement update = statements.get(connection, COMPLETE_CLAIM);
      update.setInt(1, outcome.status());
      update.setString(2, toJson(outcome.headers()));
      update.setString(3, outcome.body());
      update.setString(4, claim.key());
      update.setString(5, claim.fingerprint());
      update.executeUpdate();
      return true;
    }
    deleteExpired(statements.get(connection, DELETE_EXPIRED_KEY), claim);
    PreparedStatement insert = statements.get(connection, INSERT_COMPLETED);
    insert.setString(1, claim.key());
    insert.setString(2, claim.fingerprint());
    insert.setInt(3, outcome.status());
    insert.setString(4, toJson(outcome.headers()));
    insert.setString(5, outcome.body());
    insert.setLong(6, claim.createdMillis());
    insert.setLong(7, claim.expiresMillis());
    return insert.executeUpdate() == 1;
  }

  @Override
  public int purgeExpired(long nowMillis) {
    writeLock.lock();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement delete =
            connection.prepareStatement(
                "DELETE FROM lakestream_idempotency WHERE expires_millis <= ?")) {
      delete.setLong(1, nowMillis);
      return delete.executeUpdate();
    } catch (SQLException e) {
      throw new ServiceFailureException(e, "Idempotency store failed: %s", e.getMessage());
    } finally {
      writeLock.unlock();
    }
  }

  private static String toJson(Map<String, String> headers) {
    try {
      return JSON.writeValueAsString(headers);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, String> headers(String text) {
    if (text == null) {
      return Map.of();
    }
    try {
      return JSON.readValue(text, HEADERS_TYPE);
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
