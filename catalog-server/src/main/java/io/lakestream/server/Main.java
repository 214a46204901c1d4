package io.lakestream.server;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * The server's entry point: {@code Main [--config FILE] [--KEY VALUE ...]}.
 *
 * <p>Configuration comes from the file named by {@code --config} (or {@code LAKESTREAM_CONFIG}),
 * then {@code LAKESTREAM_*} environment variables, then flags, each overriding the one before. Exit
 * codes: 0 after a graceful shutdown on SIGTERM or SIGINT, 1 when the server cannot start, 2 for a
 * configuration or usage error. Start-up errors print one line to standard error.
 */
public final class Main {
  private static final int EXIT_STARTUP_FAILED = 1;
  private static final int EXIT_USAGE = 2;

  private Main() {}

  public static void main(String[] args) {
    configureLogging(System.getenv());
    System.exit(run(args, System.getenv(), System.out, System.err));
  }

  static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
    ServerConfig config;
    try {
      Optional<Configuration> configuration = parse(args, environment, out);
      if (configuration.isEmpty()) {
        return 0;
      }
      config = ServerConfig.from(configuration.get());
    } catch (ConfigException e) {
      err.println("lakestream: " + e.getMessage());
      return EXIT_USAGE;
    }
    CountDownLatch stop = new CountDownLatch(1);
    Signal.handle(new Signal("TERM"), signal -> stop.countDown());
    Signal.handle(new Signal("INT"), signal -> stop.countDown());
    LakestreamServer server;
    try {
      server = LakestreamServer.start(config);
    } catch (StartupException e) {
      LoggerFactory.getLogger(Main.class).debug("Start-up failed", e);
      err.println("lakestream: " + e.getMessage());
      return EXIT_STARTUP_FAILED;
    }
    Logger log = LoggerFactory.getLogger(Main.class);
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.info("Shutting down");
    server.close();
    return 0;
  }

  /**
   * Logs go to standard output (standard error is kept for the one-line start-up errors), at {@code
   * LAKESTREAM_LOG_LEVEL} (default info), with the chatty libraries at warn.
   */
  private static void configureLogging(Map<String, String> environment) {
    setDefault("org.slf4j.simpleLogger.logFile", "System.out");
    setDefault(
        "org.slf4j.simpleLogger.defaultLogLevel",
        environment.getOrDefault("LAKESTREAM_LOG_LEVEL", "info"));
    setDefault("org.slf4j.simpleLogger.showDateTime", "true");
    setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    setDefault("org.slf4j.simpleLogger.showShortLogName", "true");
    for (String chatty : new String[] {"io.netty", "com.zaxxer.hikari", "org.apache.iceberg"}) {
      setDefault("org.slf4j.simpleLogger.log." + chatty, "warn");
    }
  }

  private static void setDefault(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  /** Parses flags into a configuration, or prints help and returns empty. */
  static Optional<Configuration> parse(
      String[] args, Map<String, String> environment, PrintStream out) {
    Configuration.Builder builder = Configuration.builder(ServerConfig.allKeys());
    String configFile = environment.get("LAKESTREAM_CONFIG");
    Map<ConfigKey<?>, String> flags = new java.util.LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        printHelp(out);
        return Optional.empty();
      }
      if (!arg.startsWith("--")) {
        throw new ConfigException("Unexpected argument '" + arg + "'; see --help");
      }
      String name = arg;
      String value = null;
      int equals = arg.indexOf('=');
      if (equals > 0) {
        name = arg.substring(0, equals);
        value = arg.substring(equals + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      }
      if (value == null) {
        throw new ConfigException("Missing value for flag " + name);
      }
      if (name.equals("--config")) {
        configFile = value;
        continue;
      }
      String flag = name;
      ConfigKey<?> key =
          builder
              .keyForFlag(flag)
              .orElseThrow(() -> new ConfigException("Unknown flag " + flag + "; see --help"));
      flags.put(key, value);
    }
    if (configFile != null) {
      builder.layer("file " + configFile, ConfigFiles.read(Path.of(configFile)));
    }
    builder.environment(environment);
    flags.forEach(builder::flag);
    return Optional.of(builder.build());
  }

  private static void printHelp(PrintStream out) {
    out.println("Usage: lakestream server [--config FILE] [--KEY VALUE ...]");
    out.println();
    out.println("Starts a Lakestream server. Settings come from the configuration file (YAML or");
    out.println("properties), then LAKESTREAM_* environment variables, then flags; later wins.");
    out.println();
    out.println("  --config FILE   configuration file (also LAKESTREAM_CONFIG)");
    for (ConfigKey<?> key : ServerConfig.allKeys()) {
      out.printf(
          "  %-32s %s (default: %s)%n      file key %s, environment %s%n",
          key.flag() + " VALUE",
          key.description(),
          key.defaultText(),
          key.name(),
          key.environmentVariable());
    }
  }
}
