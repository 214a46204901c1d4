package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a server process holds, read from outside it: open files from {@code /proc/PID/fd}, heap and
 * native memory through {@code jcmd} of the JDK running this benchmark, and gauges of the server's
 * {@code /metrics}. Only ever pointed at a process this benchmark started.
 */
final class ServerProbes {
  private static final Duration JCMD_DEADLINE = Duration.ofSeconds(60);
  // A saturated server (the soak's load on two shared cores) has taken over 10 s to answer.
  private static final Duration METRICS_TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern HEAP =
      Pattern.compile("heap\\s+total reserved (\\d+)K, committed (\\d+)K, used (\\d+)K");
  private static final Pattern NMT_TOTAL =
      Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
  private static final Pattern NMT_CATEGORY =
      Pattern.compile("^-\\s+(.+?) \\(reserved=(\\d+)KB, committed=(\\d+)KB", Pattern.MULTILINE);

  private ServerProbes() {}

  /** The heap and the NMT summary of one moment, from one {@code jcmd} run. */
  record Memory(Heap heap, Map<String, Double> nativeCommittedMib) {}

  /**
   * {@code GC.heap_info} and {@code VM.native_memory summary} in one {@code jcmd -f} run (each
   * {@code jcmd} run starts a JVM, seconds on a loaded machine); needs {@code
   * -XX:NativeMemoryTracking=summary} on the process.
   */
  static Memory memory(long pid) throws IOException, InterruptedException {
    Path commands = Files.createTempFile("lakestream-jcmd-", ".txt");
    try {
      Files.writeString(commands, "GC.heap_info\nVM.native_memory summary\n", UTF_8);
      String output = jcmd(pid, "-f", commands.toString());
      return new Memory(parseHeap(pid, output), parseNativeMemory(pid, output));
    } finally {
      Files.deleteIfExists(commands);
    }
  }

  /** Entries of {@code /proc/PID/fd}: files, sockets and pipes the process has open. */
  static int openFiles(long pid) throws IOException {
    try (Stream<Path> entries = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return (int) entries.count();
    }
  }

  /** Heap committed and used, in MiB. */
  record Heap(double committedMib, double usedMib) {}

  /**
   * The heap after a full collection ({@code jcmd PID GC.run}, then {@code GC.heap_info}), so that
   * {@code usedMib} is what stays live rather than what the last young collection left.
   */
  static Heap heapAfterFullGc(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    return heap(pid);
  }

  /** The heap as {@code jcmd PID GC.heap_info} reports it now. */
  static Heap heap(long pid) throws IOException, InterruptedException {
    return parseHeap(pid, jcmd(pid, "GC.heap_info"));
  }

  private static Heap parseHeap(long pid, String info) throws IOException {
    Matcher matcher = HEAP.matcher(info);
    if (!matcher.find()) {
      throw new IOException("Unexpected GC.heap_info of " + pid + ":\n" + info);
    }
    return new Heap(
        Long.parseLong(matcher.group(2)) / 1024.0, Long.parseLong(matcher.group(3)) / 1024.0);
  }

  /**
   * Committed MiB per Native Memory Tracking category of a {@code VM.native_memory summary}, with
   * the sum under {@code Total}.
   */
  private static Map<String, Double> parseNativeMemory(long pid, String summary)
      throws IOException {
    Matcher total = NMT_TOTAL.matcher(summary);
    if (!total.find()) {
      throw new IOException("Unexpected VM.native_memory summary of " + pid + ":\n" + summary);
    }
    Map<String, Double> committed = new LinkedHashMap<>();
    committed.put("Total", Long.parseLong(total.group(2)) / 1024.0);
    Matcher category = NMT_CATEGORY.matcher(summary);
    while (category.find()) {
      committed.put(category.group(1).trim(), Long.parseLong(category.group(3)) / 1024.0);
    }
    return committed;
  }

  /**
   * The value of an unlabelled gauge in the server's Prometheus {@code /metrics}, or 0 if absent.
   */
  static double metric(HttpClient http, URI base, String name)
      throws IOException, InterruptedException {
    return metricLines(http, base, name + " ") + metricLines(http, base, name + "{");
  }

  /** The sum of the samples of {@code /metrics} whose lines start with {@code prefix}. */
  static double metricLines(HttpClient http, URI base, String prefix)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(base.resolve("/metrics")).timeout(METRICS_TIMEOUT).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET /metrics answered " + response.statusCode());
    }
    return response
        .body()
        .lines()
        .filter(line -> line.startsWith(prefix))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    ProcessBuilder builder = new ProcessBuilder(jcmd.toString(), Long.toString(pid));
    builder.command().addAll(java.util.List.of(command));
    builder.redirectErrorStream(true);
    Process process = builder.start();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(JCMD_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IOException("jcmd " + pid + " " + String.join(" ", command) + " did not finish");
    }
    String text = new String(output, UTF_8);
    if (process.exitValue() != 0) {
      throw new IOException(
          "jcmd "
              + pid
              + " "
              + String.join(" ", command)
              + " exited with "
              + process.exitValue()
              + ":\n"
              + text);
    }
    return text;
  }
}
