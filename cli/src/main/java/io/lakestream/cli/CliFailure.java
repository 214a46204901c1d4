package io.lakestream.cli;

/**
 * A command failed for a reason outside the user's typing: the server could not be reached or
 * refused the request, a table or key does not exist, an input file is malformed. The command line
 * prints the message as one line on stderr and exits with {@value LakestreamCli#EXIT_FAILURE}.
 */
public final class CliFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CliFailure(String message) {
    super(message);
  }

  public CliFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
