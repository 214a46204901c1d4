package io.lakestream.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.TerminalBuilder;

/**
 * The lines the sql shell reads: plain lines of a stream, or on a terminal a line editor (jline)
 * with a prompt and history kept in {@code ~/.lakestream/sql_history}.
 */
interface SqlLines extends AutoCloseable {
  /** The next line, or null at the end of the input. */
  String next(String prompt) throws IOException;

  @Override
  void close() throws IOException;

  /** Lines of a stream, without prompts. */
  static SqlLines of(InputStream in) {
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    return new SqlLines() {
      @Override
      public String next(String prompt) throws IOException {
        return reader.readLine();
      }

      @Override
      public void close() {
        // The stream is the caller's (standard input).
      }
    };
  }

  /** A line editor on the process's terminal; Ctrl-C drops the line, Ctrl-D ends. */
  static SqlLines terminal() throws IOException {
    org.jline.terminal.Terminal terminal = TerminalBuilder.builder().system(true).build();
    Path history = Path.of(System.getProperty("user.home"), ".lakestream", "sql_history");
    LineReader reader =
        LineReaderBuilder.builder()
            .terminal(terminal)
            .appName("lakestream")
            .variable(LineReader.HISTORY_FILE, history)
            .build();
    return new SqlLines() {
      @Override
      public String next(String prompt) {
        while (true) {
          try {
            return reader.readLine(prompt);
          } catch (UserInterruptException e) {
            // Ctrl-C: a new line.
          } catch (EndOfFileException e) {
            return null;
          }
        }
      }

      @Override
      public void close() throws IOException {
        try {
          reader.getHistory().save();
        } catch (IOException | UncheckedIOException e) {
          // History is a convenience: a read-only home keeps none.
        }
        terminal.close();
      }
    };
  }
}
