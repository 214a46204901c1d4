package io.lakestream.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Scratch directories that fixtures create and delete themselves (outside JUnit's TempDir). */
final class TestDirectories {
  private TestDirectories() {}

  static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code directory} and all below it; a file that cannot be deleted is left. */
  static void deleteQuietly(Path directory) {
    if (directory == null || !Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      // Left for the OS to clean up, like a JUnit TempDir that cannot be removed.
    }
  }
}
