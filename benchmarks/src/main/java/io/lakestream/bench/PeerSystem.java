package io.lakestream.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A streaming system measured beside Lakestream in the same benchmark run, through its own public
 * Java client (issue 37): Apache Kafka, Apache Fluss, and Lakestream itself through its ordinary
 * client, each in processes of its own.
 *
 * <p>The servers run as child processes of the benchmark. Every {@link #run(PeerWorkload)} starts a
 * fresh client JVM whose class path holds only that system's client (and the workload's main
 * class), as a user's application would. The client main is called as {@code MAIN WORKLOAD
 * key=value...} with the keys of {@link PeerWorkload#arguments()} and prints its measurements as
 * lines {@code RESULT name=value} (see {@link PeerWorkload} for the names); anything else it prints
 * is progress. A system is measured alone: the benchmark starts one, runs its workloads, closes it,
 * then starts the next.
 */
interface PeerSystem extends AutoCloseable {
  /**
   * Heap flags every system's client JVM gets after its own in a full run (the later {@code
   * -Xms}/{@code -Xmx} win): a fixed heap touched once at start, as a long-running application's is
   * after its first minutes. On this machine kind the first touch of memory costs about 8 us per 4
   * KiB page, so a client heap growing during its run charged the page faults to whichever client
   * allocated most rather than measuring the client. Quick runs leave them out (seconds per client
   * start, for runs that measure nothing).
   */
  List<String> CLIENT_HEAP_FLAGS = List.of("-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch");

  /** The system and its version as the report shows it, e.g. {@code Kafka 4.4.0}. */
  String label();

  /**
   * Whether an acknowledged write has been forced to disk ({@code fsync}) before the
   * acknowledgement; false when it is acknowledged from the page cache.
   */
  boolean fsyncedAcknowledgement();

  /** The workloads this system can run; the others are reported as not applicable. */
  boolean supports(PeerWorkload.Kind kind);

  /**
   * Starts the system's server processes with their data under {@code directory} and returns once a
   * client can connect; fails naming the process and the tail of its output otherwise.
   */
  void start(Path directory) throws Exception;

  /**
   * Runs one workload in a fresh client JVM and returns what it printed as {@code RESULT} lines;
   * fails when the client exits with a non-zero code or prints no result.
   */
  Map<String, Double> run(PeerWorkload workload) throws Exception;

  /**
   * Deletes {@code table} and its data; the benchmark calls it, outside any measured run, for
   * tables no later workload reads so that the disk a long run needs stays bounded. The default
   * does nothing.
   */
  default void dropTable(String table) throws Exception {}

  /** The bytes the system's servers hold on disk for the data written so far. */
  long diskBytes() throws IOException;

  /** Stops the processes this system started, by PID, and nothing else. */
  @Override
  void close() throws Exception;
}
