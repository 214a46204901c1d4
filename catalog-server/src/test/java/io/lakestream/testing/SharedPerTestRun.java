package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves parameters of type {@code T}, a resource every test class of a module shares (a server
 * process with an engine on it), starting it on first use in the test run; JUnit closes it after
 * the last class, as it closes every {@link AutoCloseable} in the root store. A module's resource
 * class names its resolver by extending this one:
 *
 * <pre>{@code
 * static final class Resolver extends SharedPerTestRun<SharedSpark> {
 *   Resolver() {
 *     super(SharedSpark.class, "the shared server and Spark", SharedSpark::start);
 *   }
 * }
 * }</pre>
 *
 * and a test class gets it with {@code @ExtendWith(SharedSpark.Resolver.class)} as a parameter of
 * its constructor or of its {@code @BeforeAll} method. Also holds what such resources do with their
 * server process: a fresh run directory and a clean stop.
 */
public abstract class SharedPerTestRun<T extends AutoCloseable> implements ParameterResolver {
  /** Starts the shared resource; may throw what starting a process or an engine throws. */
  @FunctionalInterface
  public interface Starter<T> {
    T start() throws Exception;
  }

  private final Class<T> type;
  private final String description;
  private final Starter<T> starter;

  /**
   * @param type the parameter type resolved, and the key of the one instance per test run
   * @param description what is started, for the message of a failed start
   * @param starter starts it
   */
  protected SharedPerTestRun(Class<T> type, String description, Starter<T> starter) {
    this.type = requireNonNull(type, "type is null");
    this.description = requireNonNull(description, "description is null");
    this.starter = requireNonNull(starter, "starter is null");
  }

  @Override
  public final boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == type;
  }

  @Override
  public final Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context
        .getRoot()
        .getStore(ExtensionContext.Namespace.create(type))
        .getOrComputeIfAbsent(type, key -> start(), type);
  }

  private T start() {
    try {
      return starter.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("Cannot start " + description, e);
    }
  }

  /**
   * A new directory for one test run's server data and engine files, below the build's test
   * directory (system property {@code lakestream.test.dir}, else {@code target}).
   */
  public static Path newRunDirectory(String prefix) throws IOException {
    Path testDirectory = Path.of(System.getProperty("lakestream.test.dir", "target"));
    return Files.createTempDirectory(Files.createDirectories(testDirectory), prefix);
  }

  /**
   * Sends the server SIGTERM and fails unless it exits with 0 within {@code timeout}: a shared
   * server must stop cleanly after the last test class.
   */
  public static void terminateCleanly(ServerProcess server, Duration timeout) {
    int exitCode;
    try {
      exitCode = server.terminate(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while stopping the server", e);
    }
    if (exitCode != 0) {
      throw new IllegalStateException("The Lakestream server exited with " + exitCode);
    }
  }
}
