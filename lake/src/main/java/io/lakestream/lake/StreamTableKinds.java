package io.lakestream.lake;

import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import java.util.function.Function;

/**
 * The one place that tells a streaming table's kind from its {@code lakestream.kind}, for union
 * reads and for every format's tiering.
 */
public final class StreamTableKinds {
  private StreamTableKinds() {}

  /**
   * Whether the table at {@code path}, of kind {@code kind}, is a primary-key table (else it is a
   * log table).
   *
   * @param notStreaming makes the exception to throw, from its message, when {@code kind} is not a
   *     streaming table's kind
   */
  public static boolean isPrimaryKey(
      TablePath path, String kind, Function<String, ? extends RuntimeException> notStreaming) {
    return TableKind.fromValue(kind)
            .orElseThrow(
                () ->
                    notStreaming.apply(
                        "Table " + path + " is a " + kind + " table, not a streaming table"))
        == TableKind.PRIMARY_KEY;
  }
}
