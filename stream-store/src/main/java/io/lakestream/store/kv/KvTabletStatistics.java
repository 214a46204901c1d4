package io.lakestream.store.kv;

import io.lakestream.store.LatencyHistogram;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one KV tablet has served since it opened, for metrics: rows written by PUT_KV requests
 * (upserts, partial updates and deletes; retries of a writer's request not counted) and the time to
 * answer each lookup request. Recorded once per request by the request's handler, read at scrape
 * time. Thread safe.
 */
public final class KvTabletStatistics {
  private final LongAdder upsertedRows = new LongAdder();
  private final LongAdder deletedRows = new LongAdder();
  private final LatencyHistogram lookups = new LatencyHistogram();

  /** Records the rows of one written request. */
  public void written(int upserts, int deletes) {
    if (upserts > 0) {
      upsertedRows.add(upserts);
    }
    if (deletes > 0) {
      deletedRows.add(deletes);
    }
  }

  /** Records one answered lookup request (point or prefix), from its decoding to its response. */
  public void lookedUp(long nanos) {
    lookups.record(nanos);
  }

  /** Rows upserted (whole or partial) since the tablet opened. */
  public long upsertedRows() {
    return upsertedRows.sum();
  }

  /** Rows deleted since the tablet opened. */
  public long deletedRows() {
    return deletedRows.sum();
  }

  public LatencyHistogram.Snapshot lookupLatencies() {
    return lookups.snapshot();
  }
}
