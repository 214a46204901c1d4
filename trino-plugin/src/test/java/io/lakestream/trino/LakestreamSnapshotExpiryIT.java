package io.lakestream.trino;

import static io.lakestream.trino.SharedTrino.LAKESTREAM_CATALOG;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.TieredTables;
import io.trino.Session;
import io.trino.testing.QueryFailedException;
import io.trino.testing.QueryRunner;
import io.trino.testing.TransactionBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Another engine's lake maintenance under a query that pinned a snapshot: Spark compacts a
 * streaming table's lake files and expires every snapshot but the current one while a Trino
 * transaction still reads the table at the snapshot it resolved first (Trino keeps a table's
 * snapshot for the whole transaction, as it does for the length of one query). The read must be
 * exact (every acknowledged row once) or fail with an error that says what happened; never a
 * partial result.
 */
@ExtendWith(SharedTrino.Resolver.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakestreamSnapshotExpiryIT {
  private static final Duration TIERING_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration SPARK_TIMEOUT = Duration.ofMinutes(3);
  private static final Pattern SCANNED_SNAPSHOT = Pattern.compile("\\$data@(\\d+)");

  private final SharedTrino shared;
  private TieredTables tables;

  LakestreamSnapshotExpiryIT(SharedTrino shared) {
    this.shared = shared;
  }

  @BeforeAll
  void connect() {
    tables = TieredTables.connect(shared.server().baseUri(), shared.rpcPort());
  }

  @AfterAll
  void close() {
    if (tables != null) {
      tables.close();
    }
  }

  /**
   * Proves that a query pinned to a snapshot whose files Spark compacted away and whose snapshot it
   * then expired (deleting the files only that snapshot held) still reads that snapshot's rows plus
   * the log from that snapshot's offsets, exactly, or fails naming the problem: the plan must not
   * take the current snapshot's offsets with the pinned snapshot's files (3,000 rows missing) or
   * the other way round (3,000 counted twice).
   */
  @Test
  void aQueryOnASnapshotAnotherEngineExpiredIsExactOrFailsClearly() {
    TieredTables.LogTable table = tables.createLogTable("expired_under_query", false);
    // Two tiering commits: the pinned snapshot has two data files, which compaction rewrites.
    table.append(2_000);
    table.awaitTiered(TIERING_TIMEOUT);
    table.append(2_000);
    table.awaitTiered(TIERING_TIMEOUT);
    String lakeTable = TieredTables.NAMESPACE + "." + table.name();
    String query =
        "SELECT count(*), count(DISTINCT b0) FROM " + LAKESTREAM_CATALOG + "." + lakeTable;
    QueryRunner trino = shared.trino();
    TransactionBuilder.transaction(
            trino.getTransactionManager(),
            trino.getPlannerContext().getMetadata(),
            trino.getAccessControl())
        .execute(
            trino.getDefaultSession(),
            (Session session) -> {
              assertThat(rows(trino, session, query)).containsExactly(List.of(4_000L, 4_000L));
              String pinned = scannedSnapshot(trino, session, query);

              List<List<String>> rewritten =
                  spark(
                      "CALL lake.system.rewrite_data_files(table => '"
                          + lakeTable
                          + "', options => map('min-input-files', '2'))");
              assertThat(Long.parseLong(rewritten.get(0).get(0)))
                  .as("data files Spark rewrote")
                  .isGreaterThanOrEqualTo(2);
              table.append(3_000);
              table.awaitTiered(TIERING_TIMEOUT);
              List<List<String>> expired =
                  spark(
                      "CALL lake.system.expire_snapshots(table => '"
                          + lakeTable
                          + "', older_than => TIMESTAMP '2100-01-01 00:00:00', retain_last => 1)");
              assertThat(Long.parseLong(expired.get(0).get(0)))
                  .as("data files Spark deleted")
                  .isGreaterThanOrEqualTo(2);

              // The transaction still reads the snapshot it resolved first, now expired.
              assertThat(scannedSnapshot(trino, session, query)).isEqualTo(pinned);
              try {
                assertThat(rows(trino, session, query)).containsExactly(List.of(7_000L, 7_000L));
              } catch (QueryFailedException e) {
                assertThat(e.getMessage())
                    .as("the failure of a read of an expired snapshot")
                    .containsAnyOf("does not exist", "not found", "No such file", "snapshot");
              }
            });
    assertThat(shared.rows(query)).containsExactly(List.of(7_000L, 7_000L));
  }

  /** The snapshot the query's scan of the streaming table reads, from its plan. */
  private static String scannedSnapshot(QueryRunner trino, Session session, String sql) {
    String plan = (String) trino.execute(session, "EXPLAIN " + sql).getOnlyValue();
    Matcher scan = SCANNED_SNAPSHOT.matcher(plan);
    assertThat(scan.find()).as("a scan of a snapshot in %s", plan).isTrue();
    return scan.group(1);
  }

  private List<List<String>> spark(String statement) {
    try {
      return shared.spark().execute(statement, SPARK_TIMEOUT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<List<Object>> rows(QueryRunner trino, Session session, String sql) {
    return trino.execute(session, sql).getMaterializedRows().stream()
        .map(row -> row.getFields())
        .toList();
  }
}
