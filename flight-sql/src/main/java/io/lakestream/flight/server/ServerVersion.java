package io.lakestream.flight.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Lakestream version this server was built as, for Flight SQL's {@code
 * FLIGHT_SQL_SERVER_VERSION} (what JDBC's {@code getDatabaseProductVersion()} reports). The build
 * writes it into a resource, so it is known whether the classes run from a jar or a directory.
 */
final class ServerVersion {
  private static final String RESOURCE = "lakestream-version.properties";

  private ServerVersion() {}

  /**
   * @throws IllegalStateException when the build left no version (a broken build, not a runtime
   *     condition)
   */
  static String get() {
    try (InputStream in = ServerVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("Resource " + RESOURCE + " is missing from the build");
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "");
      if (version.isBlank() || version.contains("${")) {
        throw new IllegalStateException(
            "Resource " + RESOURCE + " holds no built version: '" + version + "'");
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
