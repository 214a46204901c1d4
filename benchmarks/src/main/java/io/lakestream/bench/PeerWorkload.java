package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One workload a {@link PeerSystem}'s client runs, with the same rows for every system.
 *
 * <p>The rows come from the file at {@code pool} written by {@link WideEvents#writePool(Path)}; row
 * {@code n} of a workload is row {@code n % poolSize} of the pool, and for W2 its key is {@code (n
 * * 2_654_435_761L) mod keySpace} (the W1 column {@code b0} replaced by the key {@code id}).
 *
 * <p>Workloads and the {@code RESULT} names their client prints:
 *
 * <ul>
 *   <li>{@link Kind#W1_APPEND}: creates {@code table} (one bucket or partition) with {@code
 *       compression} ({@code none} or {@code zstd}) and appends {@code rows} rows one call per row
 *       with the system's documented tuned producer settings; prints {@code rows_per_s} (first
 *       append to the last acknowledgement);
 *   <li>{@link Kind#W1_SCAN} and {@link Kind#W1_SCAN_PROJECTED}: reads {@code table} from its start
 *       to its end ({@code rows} rows), touching every value of every row (projected: only {@code
 *       b0} and {@code s0}, pushed to the server where the system can); prints {@code rows_per_s}
 *       and {@code checksum} (the sum of {@code b0} plus the lengths of the strings read, so that
 *       systems can be checked against each other);
 *   <li>{@link Kind#W1_FRESHNESS}: with a reader polling {@code table} from its end, appends {@code
 *       rows} single rows one at a time, each flushed and acknowledged before the next, at the
 *       system's default producer settings; prints {@code ack_to_reader_p50_ms}, {@code
 *       ack_to_reader_p99_ms} (acknowledgement to the reader seeing the row), {@code
 *       send_to_reader_p50_ms} and {@code send_to_reader_p99_ms} (append call to the reader seeing
 *       it);
 *   <li>{@link Kind#W2_UPSERT}: creates the primary-key {@code table} with {@code buckets} buckets
 *       and upserts {@code rows} rows; prints {@code rows_per_s};
 *   <li>{@link Kind#W2_LOOKUP}: looks up {@code rows} random keys of {@code keySpace} with {@code
 *       inFlight} lookups in flight, checking each answer against the rows upserted; prints {@code
 *       lookups_per_s}.
 * </ul>
 */
record PeerWorkload(
    Kind kind,
    Path pool,
    String table,
    int rows,
    String compression,
    int buckets,
    int keySpace,
    int inFlight) {

  /** What the client does. */
  enum Kind {
    W1_APPEND,
    W1_SCAN,
    W1_SCAN_PROJECTED,
    W1_FRESHNESS,
    W2_UPSERT,
    W2_LOOKUP
  }

  PeerWorkload {
    requireNonNull(kind, "kind is null");
    requireNonNull(pool, "pool is null");
    requireNonNull(table, "table is null");
    requireNonNull(compression, "compression is null");
    if (rows <= 0 || buckets <= 0 || keySpace <= 0 || inFlight <= 0) {
      throw new IllegalArgumentException("rows, buckets, keySpace and inFlight must be positive");
    }
    if (!compression.equals("none") && !compression.equals("zstd")) {
      throw new IllegalArgumentException("compression must be none or zstd: " + compression);
    }
  }

  /** The client main's arguments after the workload name, in order. */
  Map<String, String> arguments() {
    Map<String, String> arguments = new LinkedHashMap<>();
    arguments.put("pool", pool.toString());
    arguments.put("table", table);
    arguments.put("rows", Integer.toString(rows));
    arguments.put("compression", compression);
    arguments.put("buckets", Integer.toString(buckets));
    arguments.put("keySpace", Integer.toString(keySpace));
    arguments.put("inFlight", Integer.toString(inFlight));
    return arguments;
  }
}
