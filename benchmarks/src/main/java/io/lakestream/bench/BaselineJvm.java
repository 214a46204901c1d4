package io.lakestream.bench;

import java.io.IOException;

/**
 * The trivial JVM that baselines are measured on: {@code exit} returns at once, {@code idle} prints
 * {@code ready} and then waits for end of file on standard input.
 */
public final class BaselineJvm {
  private BaselineJvm() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 1 && args[0].equals("exit")) {
      return;
    }
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() != -1) {
      // Idle until the benchmark closes our standard input.
    }
  }
}
