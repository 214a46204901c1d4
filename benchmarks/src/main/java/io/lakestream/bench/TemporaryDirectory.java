package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A directory a benchmark works in; closing it deletes it with everything inside. */
public final class TemporaryDirectory implements AutoCloseable {
  private final Path path;

  private TemporaryDirectory(Path path) {
    this.path = requireNonNull(path, "path is null");
  }

  public static TemporaryDirectory create(String prefix) throws IOException {
    return new TemporaryDirectory(Files.createTempDirectory(prefix));
  }

  public Path path() {
    return path;
  }

  Path resolve(String name) {
    return path.resolve(name);
  }

  @Override
  public void close() throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              file -> {
                try {
                  Files.delete(file);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
