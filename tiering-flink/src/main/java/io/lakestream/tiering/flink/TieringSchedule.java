package io.lakestream.tiering.flink;

import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.LakeFormat;
import io.lakestream.tiering.TieringConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When each streaming table's next round is due, the way the embedded {@code TieringService}
 * schedules it: every {@value TieringConfig#INTERVAL_PROPERTY} of the table (default 30 s), from
 * the issue of one round to the issue of the next. A table's first round is due as soon as a
 * listing finds it (a job that starts, or restarts after a failure, catches up at once). A table
 * whose interval or lake format property is invalid is not scheduled; a warning says why, once per
 * change. A table missing from a listing is forgotten.
 *
 * <p>Not thread safe: the discovery reader calls it from one thread.
 */
final class TieringSchedule {
  private static final Logger LOG = LoggerFactory.getLogger(TieringSchedule.class);

  private record Entry(LakeFormat format, Duration interval, Instant next) {}

  private final Map<TablePath, Entry> tables = new LinkedHashMap<>();
  // Why a table is not scheduled, to warn once per change.
  private final Map<TablePath, String> invalid = new HashMap<>();

  /** Takes in a listing of the catalog's streaming tables. */
  void listed(List<LakeCatalog.StreamTable> listing, Instant now) {
    Set<TablePath> seen = new HashSet<>();
    for (LakeCatalog.StreamTable table : listing) {
      TablePath path = table.path();
      seen.add(path);
      Duration interval;
      LakeFormat format;
      try {
        interval = TieringConfig.interval(table.properties());
        format = LakeFormat.of(table.properties());
      } catch (IllegalArgumentException e) {
        String reason = e.getMessage();
        if (!reason.equals(invalid.put(path, reason))) {
          LOG.warn("Table {} is not tiered: {}", path, reason);
        }
        tables.remove(path);
        continue;
      }
      invalid.remove(path);
      Entry current = tables.get(path);
      if (current == null) {
        tables.put(path, new Entry(format, interval, now));
      } else if (!current.interval().equals(interval) || current.format() != format) {
        // The next round keeps its start: one new interval after the last one was issued.
        Instant last = current.next().minus(current.interval());
        tables.put(path, new Entry(format, interval, last.plus(interval)));
      }
    }
    tables.keySet().retainAll(seen);
    invalid.keySet().retainAll(seen);
  }

  /** The rounds due at {@code now}, each issued now; the next of each is one interval later. */
  List<TieringWork> due(Instant now) {
    List<TieringWork> work = new ArrayList<>();
    for (Map.Entry<TablePath, Entry> table : tables.entrySet()) {
      Entry entry = table.getValue();
      if (now.isBefore(entry.next())) {
        continue;
      }
      work.add(new TieringWork(table.getKey(), entry.format().value(), now.toEpochMilli()));
      table.setValue(new Entry(entry.format(), entry.interval(), now.plus(entry.interval())));
    }
    return work;
  }

  /** The tables scheduled now. */
  Set<TablePath> tables() {
    return Set.copyOf(tables.keySet());
  }
}
