package io.lakestream.cli;

import java.io.Console;
import java.lang.reflect.Method;

/** Whether the process talks to a terminal, for progress output and the SQL shell's prompt. */
final class Terminal {
  private Terminal() {}

  /**
   * True when standard input and output are a terminal. On JDK 22 and later, {@code
   * System.console()} exists for redirected streams too, so its {@code isTerminal()} decides.
   */
  static boolean isInteractive() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  /**
   * Whether stderr is likely a terminal: the JDK cannot ask about stderr alone, so this takes an
   * interactive console, or {@code LAKESTREAM_PROGRESS=1}, as the sign.
   */
  static boolean isStderrTerminal() {
    return "1".equals(System.getenv("LAKESTREAM_PROGRESS")) || isInteractive();
  }
}
