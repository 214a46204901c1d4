package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * An operating-system process this benchmark started, its standard output and error going to one
 * file. Closing it kills the process if it is still running; it never touches any other process.
 */
final class ChildProcess implements AutoCloseable {
  private static final int OUTPUT_TAIL_LINES = 30;

  private final String description;
  private final Process process;
  private final Path outputFile;
  private final long startNanos;

  private ChildProcess(String description, Process process, Path outputFile, long startNanos) {
    this.description = requireNonNull(description, "description is null");
    this.process = requireNonNull(process, "process is null");
    this.outputFile = requireNonNull(outputFile, "outputFile is null");
    this.startNanos = startNanos;
  }

  static ChildProcess start(String description, ProcessBuilder builder, Path outputFile)
      throws IOException {
    builder.redirectErrorStream(true).redirectOutput(outputFile.toFile());
    long startNanos = System.nanoTime();
    return new ChildProcess(description, builder.start(), outputFile, startNanos);
  }

  /**
   * The flag giving a child JVM a temporary directory under {@code directory}, created here. Native
   * libraries (RocksDB, zstd, Netty) unpack a copy of themselves into the JVM's temporary directory
   * and delete it only at a normal exit; a child killed at the end of a run would leave its copies
   * in the system's temporary directory, where nothing removes them.
   */
  static String temporaryDirectoryFlag(Path directory) throws IOException {
    return "-Djava.io.tmpdir=" + Files.createDirectories(directory.resolve("tmp")).toAbsolutePath();
  }

  long pid() {
    return process.pid();
  }

  double millisSinceStart() {
    return (System.nanoTime() - startNanos) / 1e6;
  }

  /**
   * Polls {@code probe} every {@code pollInterval} until it holds; fails when the process exits
   * first or the deadline passes.
   */
  void awaitCondition(String condition, Duration deadline, Duration pollInterval, Probe probe)
      throws IOException, InterruptedException {
    long deadlineNanos = System.nanoTime() + deadline.toNanos();
    while (!probe.holds()) {
      if (process.waitFor(pollInterval.toNanos(), NANOSECONDS)) {
        throw failure("exited with " + process.exitValue() + " before " + condition);
      }
      if (System.nanoTime() - deadlineNanos > 0) {
        throw failure("did not reach '" + condition + "' within " + deadline);
      }
    }
  }

  /** Leaves the process alone for {@code period}; fails if it exits meanwhile. */
  void stayAliveFor(Duration period) throws InterruptedException {
    if (process.waitFor(period.toNanos(), NANOSECONDS)) {
      throw failure("exited with " + process.exitValue() + " while idle");
    }
  }

  /**
   * CPU time the process has used so far, user and system, as the operating system accounts it (in
   * clock ticks, so with a granularity of about 10 ms).
   */
  Duration cpuTime() {
    return process
        .toHandle()
        .info()
        .totalCpuDuration()
        .orElseThrow(() -> failure("has no CPU time the operating system reports"));
  }

  /** The command name the kernel reports for the process ({@code Name:} in /proc/PID/status). */
  String commandName() throws IOException {
    return statusField("Name");
  }

  /** Resident set size from /proc/PID/status {@code VmRSS}, in MiB. */
  double residentMemoryMib() throws IOException {
    String value = statusField("VmRSS");
    if (!value.endsWith(" kB")) {
      throw new IOException("Unexpected VmRSS '" + value + "' for " + description);
    }
    return Long.parseLong(value.substring(0, value.length() - 3).trim()) / 1024.0;
  }

  /** Closes the process's standard input, so a process reading it sees end of file. */
  void closeInput() throws IOException {
    process.getOutputStream().close();
  }

  /** Sends SIGTERM and returns the exit code. */
  int terminate(Duration deadline) throws InterruptedException {
    process.destroy();
    return awaitExit(deadline);
  }

  int awaitExit(Duration deadline) throws InterruptedException {
    if (!process.waitFor(deadline.toNanos(), NANOSECONDS)) {
      throw failure("did not exit within " + deadline);
    }
    return process.exitValue();
  }

  String output() throws IOException {
    return new String(Files.readAllBytes(outputFile), UTF_8);
  }

  IllegalStateException failure(String what) {
    String tail;
    try {
      List<String> lines = output().lines().toList();
      tail =
          String.join(
              "\n", lines.subList(Math.max(0, lines.size() - OUTPUT_TAIL_LINES), lines.size()));
    } catch (IOException e) {
      tail = "(cannot read " + outputFile + ": " + e.getMessage() + ")";
    }
    return new IllegalStateException(
        description + " (pid " + process.pid() + ") " + what + "; its output:\n" + tail);
  }

  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String statusField(String field) throws IOException {
    String prefix = field + ":";
    return Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status")).stream()
        .filter(line -> line.startsWith(prefix))
        .map(line -> line.substring(prefix.length()).trim())
        .findFirst()
        .orElseThrow(
            () -> new IOException("No " + field + " in /proc/" + process.pid() + "/status"));
  }

  /** A condition checked while polling. */
  @FunctionalInterface
  interface Probe {
    boolean holds() throws IOException, InterruptedException;
  }
}
