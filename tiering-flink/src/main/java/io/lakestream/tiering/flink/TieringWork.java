package io.lakestream.tiering.flink;

import io.lakestream.client.TablePath;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A round that is due: the table to tier, the lake format it tiers into, and when the job's
 * scheduler issued it. A Flink POJO (public fields, a no-argument constructor), so it travels
 * between subtasks with Flink's own serializer.
 */
public final class TieringWork {
  /** The table's warehouse, or null for the server's default. */
  public String warehouse;

  public String[] namespace;
  public String name;

  /** The table's {@code lakestream.lake-format} ({@code iceberg}, {@code paimon}). */
  public String format;

  /** When the scheduler issued the work, in epoch milliseconds. */
  public long issuedAt;

  public TieringWork() {}

  public TieringWork(TablePath path, String format, long issuedAt) {
    this.warehouse = path.warehouse();
    this.namespace = path.namespace().toArray(String[]::new);
    this.name = path.name();
    this.format = Objects.requireNonNull(format, "format is null");
    this.issuedAt = issuedAt;
  }

  public TablePath path() {
    return new TablePath(warehouse, List.of(namespace), name);
  }

  /** What rounds are keyed by: the table's path, with its warehouse. */
  public String key() {
    return path().toString();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TieringWork work
        && Objects.equals(warehouse, work.warehouse)
        && Arrays.equals(namespace, work.namespace)
        && Objects.equals(name, work.name)
        && Objects.equals(format, work.format)
        && issuedAt == work.issuedAt;
  }

  @Override
  public int hashCode() {
    return Objects.hash(warehouse, Arrays.hashCode(namespace), name, format, issuedAt);
  }

  @Override
  public String toString() {
    return "round of " + key() + " (" + format + ") issued at " + issuedAt;
  }
}
