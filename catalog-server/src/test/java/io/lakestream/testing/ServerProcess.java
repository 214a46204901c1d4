package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * A Lakestream server running as a separate OS process, started through the real launcher {@code
 * bin/lakestream server} from the packaged distribution (never building). Output goes to files in
 * the data directory's sibling so a failing test can show it.
 */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final Path stdout;
  private final Path stderr;
  private final int httpPort;
  // What awaitLine has consumed of stdout: a byte position and the unfinished last line.
  private long stdoutPosition;
  private final StringBuilder partialLine = new StringBuilder();

  private ServerProcess(Process process, Path stdout, Path stderr, int httpPort) {
    this.process = requireNonNull(process, "process is null");
    this.stdout = stdout;
    this.stderr = stderr;
    this.httpPort = httpPort;
  }

  /** The repository root, from the {@code lakestream.home} system property set by the build. */
  public static Path home() {
    String home = System.getProperty("lakestream.home");
    if (home == null) {
      throw new IllegalStateException("System property lakestream.home is not set");
    }
    return Path.of(home);
  }

  /** A port that was free a moment ago. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  /** Starts {@code bin/lakestream server} with the given flags; does not wait for readiness. */
  public static ServerProcess launch(Path logDirectory, int httpPort, List<String> flags)
      throws IOException {
    return launch(logDirectory, httpPort, flags, Map.of());
  }

  public static ServerProcess launch(
      Path logDirectory, int httpPort, List<String> flags, Map<String, String> environment)
      throws IOException {
    Files.createDirectories(logDirectory);
    List<String> command = new ArrayList<>();
    command.add(home().resolve("bin/lakestream").toString());
    command.add("server");
    command.addAll(flags);
    Path stdout = Files.createTempFile(logDirectory, "server-", ".out");
    Path stderr = Files.createTempFile(logDirectory, "server-", ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().put("LAKESTREAM_NO_BUILD", "1");
    builder.environment().put("LAKESTREAM_HEAP", "512m");
    builder.environment().putAll(environment);
    return new ServerProcess(builder.start(), stdout, stderr, httpPort);
  }

  /** Starts a server on fresh ports with the given data directory and waits until it is ready. */
  public static ServerProcess startReady(Path dataDirectory, Path logDirectory, Duration timeout)
      throws IOException, InterruptedException {
    ServerProcess server = launchOnFreePorts(dataDirectory, logDirectory, List.of());
    server.awaitReady(timeout);
    return server;
  }

  /**
   * Starts a server on fresh ports with the given data directory and flags after the ports; does
   * not wait for readiness.
   */
  public static ServerProcess launchOnFreePorts(
      Path dataDirectory, Path logDirectory, List<String> extraFlags) throws IOException {
    int httpPort = freePort();
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--data-dir", dataDirectory.toString(),
                "--http-port", Integer.toString(httpPort),
                "--rpc-port", Integer.toString(freePort()),
                "--flight-port", Integer.toString(freePort())));
    flags.addAll(extraFlags);
    return launch(logDirectory, httpPort, flags);
  }

  /**
   * Launches the server with the given flags and waits until it is ready, launching it again while
   * a port is still held by a process that was just killed (fixed ports across restarts keep the
   * clients' addresses valid).
   */
  public static ServerProcess launchReady(
      Path logDirectory,
      int httpPort,
      List<String> flags,
      Map<String, String> environment,
      Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      ServerProcess server = launch(logDirectory, httpPort, flags, environment);
      try {
        server.awaitReady(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        return server;
      } catch (IllegalStateException e) {
        server.close();
        String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        if (!message.contains("already in use") || System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  /**
   * Waits for the next line of standard output, after the lines earlier calls consumed, that
   * matches; polls the output file every millisecond, so a caller can react to a log line within
   * about that long.
   *
   * @return the line, or null when the process exited or the timeout passed first
   */
  public synchronized String awaitLine(Predicate<String> matching, Duration timeout)
      throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (RandomAccessFile file = new RandomAccessFile(stdout.toFile(), "r")) {
      byte[] buffer = new byte[64 * 1024];
      while (true) {
        file.seek(stdoutPosition);
        int read = file.read(buffer);
        if (read > 0) {
          stdoutPosition += read;
          // Log lines are ASCII apart from user data; a split multi-byte character only garbles
          // the one line it is in.
          partialLine.append(new String(buffer, 0, read, StandardCharsets.UTF_8));
          int end;
          while ((end = partialLine.indexOf("\n")) >= 0) {
            String line = partialLine.substring(0, end);
            partialLine.delete(0, end + 1);
            if (matching.test(line)) {
              return line;
            }
          }
          continue;
        }
        if (!process.isAlive() || System.nanoTime() > deadline) {
          return null;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }
    }
  }

  /** Polls {@code /ready} until it answers 200, the process dies, or the timeout passes. */
  public void awaitReady(Duration timeout) throws InterruptedException, IOException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Server exited with " + process.exitValue() + " before it was ready: " + output());
      }
      try {
        HttpResponse<String> response =
            client.send(
                HttpRequest.newBuilder(URI.create(baseUri() + "/ready"))
                    .timeout(Duration.ofSeconds(1))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      process.waitFor(50, TimeUnit.MILLISECONDS);
    }
    throw new IllegalStateException("Server not ready after " + timeout + ": " + output());
  }

  public String baseUri() {
    return "http://127.0.0.1:" + httpPort;
  }

  public int httpPort() {
    return httpPort;
  }

  public long pid() {
    return process.pid();
  }

  public Process process() {
    return process;
  }

  /** Sends SIGTERM and returns the exit code. */
  public int terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("Server did not stop within " + timeout + " of SIGTERM");
    }
    return process.exitValue();
  }

  /** Sends SIGKILL and waits for the process to be gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** Waits for the process to exit on its own and returns its exit code. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("Server did not exit within " + timeout + ": " + output());
    }
    return process.exitValue();
  }

  public String stdout() throws IOException {
    return Files.readString(stdout, StandardCharsets.UTF_8);
  }

  public String stderr() throws IOException {
    return Files.readString(stderr, StandardCharsets.UTF_8);
  }

  private String output() {
    try {
      return "stdout:\n" + stdout() + "\nstderr:\n" + stderr();
    } catch (IOException e) {
      return "(output unreadable: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor();
    }
  }
}
