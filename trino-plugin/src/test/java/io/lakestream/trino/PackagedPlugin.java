package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.inject.Key;
import io.trino.server.PluginInstaller;
import io.trino.testing.DistributedQueryRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The plugin directory {@code mvn package} builds ({@code target/lakestream-trino-plugin-VERSION/},
 * named by the build in the system property {@value #DIRECTORY_PROPERTY}), installed into a query
 * runner the way a Trino server installs it: Trino's {@code plugin.dir} names a directory whose
 * subdirectories are plugins (a testing server's {@code plugin.dir} is its base data directory),
 * and Trino's plugin manager loads each through its own plugin class loader, which sees the SPI of
 * the server and otherwise only the jars of that directory.
 */
final class PackagedPlugin {
  static final String DIRECTORY_PROPERTY = "lakestream.trino.plugin.dir";

  /** The name Trino gives the plugin: the name of its directory under {@code plugin.dir}. */
  static final String PLUGIN_NAME = "lakestream";

  private PackagedPlugin() {}

  /** The packaged plugin directory, which must exist. */
  static Path directory() {
    String value = System.getProperty(DIRECTORY_PROPERTY);
    if (value == null) {
      throw new IllegalStateException(
          "System property " + DIRECTORY_PROPERTY + " is not set by the build");
    }
    Path directory = Path.of(value).toAbsolutePath();
    if (!Files.isDirectory(directory)) {
      throw new IllegalStateException(
          "No packaged plugin at " + directory + ": run mvn package on trino-plugin first");
    }
    return directory;
  }

  /**
   * Makes {@code parent} a value for Trino's {@code plugin.dir}: a directory holding one plugin
   * directory, {@value #PLUGIN_NAME}, a link to the packaged plugin directory.
   */
  static Path pluginsDirectory(Path parent) {
    requireNonNull(parent, "parent is null");
    try {
      Files.createDirectories(parent);
      Files.createSymbolicLink(parent.resolve(PLUGIN_NAME), directory());
      return parent;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot lay out the plugin directory in " + parent, e);
    }
  }

  /**
   * Loads the plugins of every server's {@code plugin.dir} (see {@link #pluginsDirectory}) through
   * Trino's plugin manager, as a Trino server does at start.
   */
  static void loadPlugins(DistributedQueryRunner runner) {
    for (var server : runner.getServers()) {
      server.getInstance(Key.get(PluginInstaller.class)).loadPlugins();
    }
  }
}
