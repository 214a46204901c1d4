package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A benchmark ran to the end but saw faults that make the run a failure, such as requests that did
 * not succeed or commits that were acknowledged and then missing. Unlike other failures it carries
 * the run's figures, fault counts among them, so the report is still printed and written before the
 * run is marked failed.
 */
public final class FaultedRunException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient List<Figure> figures;

  /**
   * @param message what went wrong, naming the server and the counts
   * @param figures the figures of the run, at least one, in report order
   */
  public FaultedRunException(String message, List<Figure> figures) {
    super(requireNonNull(message, "message is null"));
    this.figures = List.copyOf(requireNonNull(figures, "figures is null"));
    if (this.figures.isEmpty()) {
      throw new IllegalArgumentException("A faulted run needs its figures");
    }
  }

  public List<Figure> figures() {
    return figures;
  }
}
