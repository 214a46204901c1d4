package io.lakestream.flight.server;

import static java.util.Objects.requireNonNull;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Settings of the Arrow Flight SQL endpoint beyond its port: what each query may use, how long a
 * result waits to be fetched, and TLS.
 *
 * @param queryMemoryBytes the memory each query's SQL engine may use; a query that needs more fails
 *     with {@code RESOURCE_EXHAUSTED}
 * @param queryThreads threads each query's SQL engine runs on
 * @param resultTimeout how long a started query's result waits to be fetched before it is dropped
 * @param queryTimeout how long a query may run, from its start until its result is released; a
 *     query running longer is stopped and fails with {@code TIMED_OUT}
 * @param maxConcurrentQueriesPerPrincipal how many queries one principal may run at once; one more
 *     fails with {@code RESOURCE_EXHAUSTED}
 * @param tls the certificate chain and private key to serve TLS with, if any
 */
public record FlightSqlConfig(
    long queryMemoryBytes,
    int queryThreads,
    Duration resultTimeout,
    Duration queryTimeout,
    int maxConcurrentQueriesPerPrincipal,
    Optional<Tls> tls) {
  public static final ConfigKey<Long> QUERY_MEMORY =
      ConfigKey.bytes(
          "flight.query-memory-limit",
          1L << 30,
          "Memory each Flight SQL query may use; a query that needs more fails with"
              + " RESOURCE_EXHAUSTED");
  public static final ConfigKey<Integer> QUERY_THREADS =
      ConfigKey.integer(
          "flight.query-threads", 2, 1, 256, "Threads each Flight SQL query's SQL engine runs on");
  public static final ConfigKey<Duration> RESULT_TIMEOUT =
      ConfigKey.duration(
          "flight.result-timeout",
          Duration.ofMinutes(5),
          "How long a started Flight SQL query's result waits to be fetched before it is dropped");
  public static final ConfigKey<Duration> QUERY_TIMEOUT =
      ConfigKey.duration(
          "flight.query-timeout",
          Duration.ofMinutes(5),
          "How long a Flight SQL query may run, from its start until its result is released; a"
              + " query running longer is stopped and fails with TIMED_OUT");
  public static final ConfigKey<Integer> MAX_CONCURRENT_QUERIES_PER_PRINCIPAL =
      ConfigKey.integer(
          "flight.max-concurrent-queries-per-principal",
          4,
          1,
          10_000,
          "How many Flight SQL queries one principal may run at once; one more fails with"
              + " RESOURCE_EXHAUSTED");
  public static final ConfigKey<String> TLS_CERTIFICATE_CHAIN =
      ConfigKey.string(
          "flight.tls.certificate-chain",
          "",
          "PEM file with the certificate chain the Flight SQL endpoint serves TLS with (with"
              + " flight.tls.private-key); empty serves plaintext");
  public static final ConfigKey<String> TLS_PRIVATE_KEY =
      ConfigKey.string(
          "flight.tls.private-key",
          "",
          "PEM file with the PKCS#8 private key of flight.tls.certificate-chain");

  public static final List<ConfigKey<?>> KEYS =
      List.of(
          QUERY_MEMORY,
          QUERY_THREADS,
          RESULT_TIMEOUT,
          QUERY_TIMEOUT,
          MAX_CONCURRENT_QUERIES_PER_PRINCIPAL,
          TLS_CERTIFICATE_CHAIN,
          TLS_PRIVATE_KEY);

  /** PEM files of a TLS certificate chain and its private key. */
  public record Tls(Path certificateChain, Path privateKey) {
    public Tls {
      requireNonNull(certificateChain, "certificateChain is null");
      requireNonNull(privateKey, "privateKey is null");
    }
  }

  public FlightSqlConfig {
    requireNonNull(resultTimeout, "resultTimeout is null");
    requireNonNull(tls, "tls is null");
    if (queryMemoryBytes < 1 << 20) {
      throw new IllegalArgumentException(
          "Invalid flight.query-memory-limit " + queryMemoryBytes + ": must be at least 1mb");
    }
    if (resultTimeout.isNegative() || resultTimeout.isZero()) {
      throw new IllegalArgumentException(
          "Invalid flight.result-timeout " + resultTimeout + ": must be positive");
    }
    requireNonNull(queryTimeout, "queryTimeout is null");
    if (queryTimeout.isNegative() || queryTimeout.isZero()) {
      throw new IllegalArgumentException(
          "Invalid flight.query-timeout " + queryTimeout + ": must be positive");
    }
    if (maxConcurrentQueriesPerPrincipal < 1) {
      throw new IllegalArgumentException(
          "Invalid flight.max-concurrent-queries-per-principal "
              + maxConcurrentQueriesPerPrincipal
              + ": must be at least 1");
    }
  }

  /**
   * Reads the settings.
   *
   * @throws ConfigException naming the key, when only one of the TLS files is set or a file cannot
   *     be read
   */
  public static FlightSqlConfig from(Configuration configuration) {
    String chain = configuration.get(TLS_CERTIFICATE_CHAIN).trim();
    String key = configuration.get(TLS_PRIVATE_KEY).trim();
    Optional<Tls> tls = Optional.empty();
    if (!chain.isEmpty() || !key.isEmpty()) {
      if (chain.isEmpty() || key.isEmpty()) {
        throw new ConfigException(
            "flight.tls.certificate-chain and flight.tls.private-key must be set together");
      }
      tls =
          Optional.of(
              new Tls(readable(chain, TLS_CERTIFICATE_CHAIN), readable(key, TLS_PRIVATE_KEY)));
    }
    try {
      return new FlightSqlConfig(
          configuration.get(QUERY_MEMORY),
          configuration.get(QUERY_THREADS),
          configuration.get(RESULT_TIMEOUT),
          configuration.get(QUERY_TIMEOUT),
          configuration.get(MAX_CONCURRENT_QUERIES_PER_PRINCIPAL),
          tls);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  public static FlightSqlConfig defaults() {
    return from(Configuration.builder(KEYS).build());
  }

  private static Path readable(String file, ConfigKey<String> key) {
    Path path = Path.of(file);
    if (!Files.isReadable(path)) {
      throw new ConfigException("Invalid " + key.name() + " '" + file + "': not a readable file");
    }
    return path;
  }

  /** The memory limit as DuckDB's {@code memory_limit} setting spells it. */
  String duckDbMemoryLimit() {
    return Math.max(1, queryMemoryBytes / 1024) + "KiB";
  }
}
