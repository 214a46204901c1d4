package io.lakestream.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Starts the packaged server the way an operator does: {@code bin/lakestream server} with {@code
 * LAKESTREAM_NO_BUILD=1}, the default configuration apart from the data directory and ports, bound
 * to loopback. The launcher {@code exec}s java, so the started process is the server JVM.
 */
public final class LakestreamLauncher {
  /** The launcher's default heap. */
  static final String SERVER_HEAP = "4g";

  /** The launcher's JVM_FLAGS at its default heap, for baseline JVMs that should match it. */
  static final List<String> JVM_FLAGS =
      List.of(
          "-Xms256m",
          "-Xmx" + SERVER_HEAP,
          "-XX:+UseG1GC",
          "-XX:+UseTransparentHugePages",
          "-XX:+ExitOnOutOfMemoryError",
          "--enable-native-access=ALL-UNNAMED",
          "--sun-misc-unsafe-memory-access=allow",
          "--add-opens=java.base/java.nio=ALL-UNNAMED");

  private LakestreamLauncher() {}

  /** {@code bin/lakestream} under the repository root; fails when it is not executable. */
  public static Path find(Path lakestreamHome) {
    Path launcher = lakestreamHome.resolve("bin").resolve("lakestream");
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException("No executable launcher at " + launcher);
    }
    return launcher;
  }

  /** A server on {@code 127.0.0.1} with its HTTP, RPC and Flight ports and its data directory. */
  static ProcessBuilder server(
      Path launcher, Path dataDirectory, int httpPort, int rpcPort, int flightPort) {
    ProcessBuilder builder =
        new ProcessBuilder(
            launcher.toString(),
            "server",
            "--data-dir",
            dataDirectory.toString(),
            "--bind",
            "127.0.0.1",
            "--http-port",
            Integer.toString(httpPort),
            "--rpc-port",
            Integer.toString(rpcPort),
            "--flight-port",
            Integer.toString(flightPort));
    Map<String, String> environment = builder.environment();
    // Settings from the caller's environment would change what is measured.
    environment.keySet().removeIf(name -> name.startsWith("LAKESTREAM_"));
    environment.put("LAKESTREAM_NO_BUILD", "1");
    environment.put("LAKESTREAM_HEAP", SERVER_HEAP);
    environment.put("JAVA_HOME", System.getProperty("java.home"));
    return builder;
  }
}
