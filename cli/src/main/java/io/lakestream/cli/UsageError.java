package io.lakestream.cli;

/**
 * The command line was used wrongly in a way the option parser cannot see: a malformed schema, an
 * unknown column, an option value out of range. Exits with {@value LakestreamCli#EXIT_USAGE} like
 * the parser's own errors.
 */
public final class UsageError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UsageError(String message) {
    super(message);
  }
}
