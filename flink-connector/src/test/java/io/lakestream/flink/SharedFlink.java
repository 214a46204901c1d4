package io.lakestream.flink;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Flink MiniCluster for all the test classes of this module (one JVM runs them): started by the
 * first class that registers the extension, stopped when the test run ends. Each class gets the
 * cluster as its {@code StreamExecutionEnvironment}, with its own default parallelism; the jobs a
 * test leaves running are cancelled after it, so that no class holds slots another needs.
 *
 * <pre>{@code @RegisterExtension static final SharedFlink FLINK = SharedFlink.withParallelism(2);}
 * </pre>
 */
final class SharedFlink implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
  /** Enough for the most parallel job of any test (4). */
  private static final int SLOTS = 4;

  private final int parallelism;
  private Cluster cluster;

  private SharedFlink(int parallelism) {
    this.parallelism = parallelism;
  }

  /** The shared cluster, at {@code parallelism} by default for the registering class's jobs. */
  static SharedFlink withParallelism(int parallelism) {
    if (parallelism < 1 || parallelism > SLOTS) {
      throw new IllegalArgumentException("parallelism must be 1 to " + SLOTS + ": " + parallelism);
    }
    return new SharedFlink(parallelism);
  }

  /** The started cluster in the run's root store, so that JUnit closes it when the run ends. */
  private static final class Cluster implements AutoCloseable {
    final MiniClusterWithClientResource resource =
        new MiniClusterWithClientResource(
            new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(SLOTS)
                // Longer than the heartbeat timeout, as cancelling a test's jobs requires.
                .setShutdownTimeout(Duration.ofSeconds(30))
                .build());

    Cluster() {
      try {
        resource.before();
      } catch (Exception e) {
        throw new IllegalStateException("Cannot start the Flink MiniCluster", e);
      }
    }

    @Override
    public void close() {
      resource.after();
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster =
        context
            .getRoot()
            .getStore(ExtensionContext.Namespace.create(SharedFlink.class))
            .getOrComputeIfAbsent(Cluster.class, type -> new Cluster(), Cluster.class);
    TestStreamEnvironment.setAsContext(cluster.resource.getMiniCluster(), parallelism);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    TestStreamEnvironment.setAsContext(cluster.resource.getMiniCluster(), parallelism);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    cluster.resource.cancelAllJobsAndWaitUntilSlotsAreFreed();
  }

  /** The configuration a client of the cluster needs (its REST address and port). */
  Configuration getClientConfiguration() {
    return cluster.resource.getClientConfiguration();
  }
}
