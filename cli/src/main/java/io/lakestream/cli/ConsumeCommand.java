package io.lakestream.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code consume TABLE}: prints a table's rows from a start until caught up. */
@Command(
    name = "consume",
    mixinStandardHelpOptions = true,
    description = {
      "Prints the rows of a table's log from --from (default earliest) in every bucket, and stops"
          + " once it has read up to the high watermark every bucket had (or after --limit rows);"
          + " with --follow it goes on printing new rows until interrupted.",
      "A primary-key table's changelog is printed, with each row's change type in column op"
          + " (+I, -U, +U, -D). Rows of different buckets interleave; within a bucket they come in"
          + " offset order."
    })
final class ConsumeCommand extends LogReadCommand {
  @Option(names = "--follow", description = "Go on printing new rows after catching up")
  boolean follow;

  @Override
  String defaultFrom() {
    return "earliest";
  }

  @Override
  boolean follow() {
    return follow;
  }
}
