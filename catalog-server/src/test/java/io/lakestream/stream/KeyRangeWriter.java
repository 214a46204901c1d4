package io.lakestream.stream;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Table;
import io.lakestream.client.UpsertWriter;
import io.lakestream.client.rpc.RpcException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One writer of {@link PrimaryKeyCrashConsistencyIT}: the only writer of a range of keys of a
 * primary-key table with the columns {@code (id, v, writer, seq)}, so the order of its operations
 * is the order the server must apply them in. It upserts and deletes through an {@link
 * UpsertWriter} in small groups and flushes after each group; every operation of a group whose
 * flush succeeded is acknowledged. Every operation gets the next number of the writer's sequence,
 * and an upsert stores it in {@code seq}, so each upsert in the changelog names the operation it
 * came from.
 *
 * <p>The {@link UpsertWriter} resends its in-doubt batches itself while the server restarts. When
 * it gives up (its flush or a write fails), the operations of the failed group stay <em>in
 * doubt</em> for good: the crashed server may or may not have applied each of them. The writer is
 * closed, which stops its resends, before a new one takes over the key range.
 *
 * <p>Confined to one thread at a time; the test hands it from round to round through {@code
 * Future.get}, which orders the accesses.
 */
final class KeyRangeWriter {
  private static final int MAX_GROUP = 12;
  private static final int DELETE_PERCENT = 20;

  /** An operation on one key: an upsert of {@code (key, value, writer, sequence)}, or a delete. */
  record Operation(long key, long sequence, boolean delete, long value, int writer) {
    Object[] row() {
      return new Object[] {key, value, writer, sequence};
    }

    @Override
    public String toString() {
      return (delete ? "delete" : "upsert") + " #" + sequence + " of key " + key;
    }
  }

  enum Outcome {
    /** Written and not yet flushed. */
    PENDING,
    /** Its group's flush succeeded. */
    ACKNOWLEDGED,
    /** Its writer failed before a flush covered it: applied or not. */
    IN_DOUBT
  }

  private final int index;
  private final long firstKey;
  private final int keys;
  private final Random random;
  private final List<Operation> operations = new ArrayList<>();
  private final List<Outcome> outcomes = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();
  private UpsertWriter writer;
  private long nextSequence;
  private int flushes;
  private int flushesAcrossKills;

  KeyRangeWriter(int index, long firstKey, int keys, long seed) {
    this.index = index;
    this.firstKey = firstKey;
    this.keys = keys;
    this.random = new Random(seed);
  }

  /**
   * Writes groups of operations until {@code stop} is set, each followed by a flush; counts every
   * operation down on {@code written}. Returns after a flush succeeded or failed.
   *
   * @param kills how many times the server was killed so far, to count the groups caught by a kill
   */
  void writeUntilStopped(
      Table table, AtomicBoolean stop, CountDownLatch written, AtomicInteger kills) {
    requireNonNull(table, "table is null");
    while (!stop.get()) {
      if (writer == null) {
        writer = table.newUpsertWriter();
      }
      int group = 1 + random.nextInt(MAX_GROUP);
      int killsBefore = kills.get();
      try {
        for (int i = 0; i < group; i++) {
          long key = firstKey + random.nextInt(keys);
          boolean delete = random.nextInt(100) < DELETE_PERCENT;
          Operation operation =
              new Operation(key, nextSequence++, delete, random.nextLong(), index);
          if (delete) {
            writer.delete(key);
          } else {
            writer.upsert(operation.row());
          }
          operations.add(operation);
          outcomes.add(Outcome.PENDING);
          written.countDown();
        }
        writer.flush();
        settle(Outcome.ACKNOWLEDGED);
        flushes++;
        if (kills.get() != killsBefore) {
          flushesAcrossKills++;
        }
      } catch (RpcException e) {
        failures.add(e.error() + ": " + e.getMessage());
        settle(Outcome.IN_DOUBT);
        try {
          writer.close();
        } catch (RpcException expected) {
          // The close flushes first and reports the same failure; its threads are stopped anyway.
        }
        writer = null;
      }
    }
  }

  private void settle(Outcome outcome) {
    for (int i = outcomes.size() - 1; i >= 0 && outcomes.get(i) == Outcome.PENDING; i--) {
      outcomes.set(i, outcome);
    }
  }

  /** Closes the current {@link UpsertWriter}; nothing may be pending. */
  void close() {
    if (writer != null) {
      writer.close();
      writer = null;
    }
  }

  int index() {
    return index;
  }

  long firstKey() {
    return firstKey;
  }

  int keys() {
    return keys;
  }

  List<Operation> operations() {
    return List.copyOf(operations);
  }

  List<Outcome> outcomes() {
    return List.copyOf(outcomes);
  }

  /** Why each {@link UpsertWriter} that gave up failed. */
  List<String> failures() {
    return List.copyOf(failures);
  }

  int flushes() {
    return flushes;
  }

  /** Successful flushes of groups that were written before a kill and acknowledged after it. */
  int flushesAcrossKills() {
    return flushesAcrossKills;
  }
}
