package io.lakestream.cli;

import picocli.CommandLine.Command;

/** {@code tail TABLE}: follows a table from its latest offset. */
@Command(
    name = "tail",
    mixinStandardHelpOptions = true,
    description = {
      "Prints the rows written to a table from now on (--from latest) until interrupted or"
          + " until --limit rows; the same as consume --from latest --follow."
    })
final class TailCommand extends LogReadCommand {
  @Override
  String defaultFrom() {
    return "latest";
  }

  @Override
  boolean follow() {
    return true;
  }
}
