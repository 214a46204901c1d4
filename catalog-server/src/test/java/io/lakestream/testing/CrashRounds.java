package io.lakestream.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the crash-consistency tests share around their rounds of SIGKILL ({@link
 * PackagedServer#kill()}): waiting for the writers a kill cut off, and failing with the violations
 * found, naming the seed that reproduces them.
 */
public final class CrashRounds {
  /** How many violations a failure lists; the count names them all. */
  private static final int MAX_REPORTED_VIOLATIONS = 40;

  private CrashRounds() {}

  /**
   * Waits for writer tasks to finish after a kill or restart, failing with the writer's error or
   * when they run longer than {@code timeout} in all.
   *
   * @param event what happened in the round, such as {@code "kill"}, for the failure message
   */
  public static void awaitWriters(
      List<Future<?>> running, Duration timeout, String event, int round, long seed)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Future<?> writer : running) {
      try {
        writer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        throw new AssertionError(
            "Writer failed in round " + round + " (seed " + seed + "): " + e.getCause(),
            e.getCause());
      } catch (TimeoutException e) {
        throw new AssertionError(
            "Writer still running " + timeout + " after the " + event + " in round " + round);
      }
    }
  }

  /**
   * Fails, listing the first violations, unless {@code violations} is empty.
   *
   * @param when when the check ran, such as {@code "after restart 3"}
   */
  public static void assertNoViolations(List<String> violations, String when, long seed) {
    if (!violations.isEmpty()) {
      throw new AssertionError(
          violations.size()
              + " violations "
              + when
              + " (seed "
              + seed
              + "):\n  "
              + String.join(
                  "\n  ",
                  violations.subList(0, Math.min(violations.size(), MAX_REPORTED_VIOLATIONS))));
    }
  }
}
