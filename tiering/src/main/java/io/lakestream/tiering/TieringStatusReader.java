package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.Connection;
import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TableKind;
import io.lakestream.client.TablePath;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.TieringException;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the {@link TieringStatus} of streaming tables: the tiered offsets from the Iceberg table's
 * newest tiering snapshot (or, when another engine's maintenance removed it, the catalog's record
 * of them: see {@link StartOffsets}), the high watermarks and the append time of the oldest
 * untiered record of each bucket from the stream, and the service's schedule, last error and counts
 * from a {@link TieringService}.
 *
 * <p>Reading costs one table load, one offsets request per bucket and one single-batch fetch per
 * bucket that lags; it changes nothing. Thread safe.
 */
public final class TieringStatusReader {
  private static final Logger LOG = LoggerFactory.getLogger(TieringStatusReader.class);
  private static final Set<String> STREAM_KINDS =
      Set.of(TableKind.LOG.value(), TableKind.PRIMARY_KEY.value());

  private final LakeCatalog lake;
  private final Connection connection;
  private final TieringService service;
  private final Clock clock;
  private final TieredOffsetsStore offsetsStore;

  public TieringStatusReader(
      LakeCatalog lake, Connection connection, TieringService service, Clock clock) {
    this(lake, connection, service, clock, TieredOffsetsStore.NONE);
  }

  /**
   * @param offsetsStore the catalog's record of tiered offsets, read when a table lost its own
   */
  public TieringStatusReader(
      LakeCatalog lake,
      Connection connection,
      TieringService service,
      Clock clock,
      TieredOffsetsStore offsetsStore) {
    this.offsetsStore = requireNonNull(offsetsStore, "offsetsStore is null");
    this.lake = requireNonNull(lake, "lake is null");
    this.connection = requireNonNull(connection, "connection is null");
    this.service = requireNonNull(service, "service is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /**
   * The status of one table now.
   *
   * @throws NoSuchTableException when the table does not exist
   * @throws IllegalArgumentException when it is not a streaming table (no {@code lakestream.kind})
   * @throws RuntimeException from the catalog or the stream RPC
   */
  public TieringStatus status(TablePath path) {
    Table table = lake.loadTable(path);
    String kind = table.properties().get(LakestreamProperties.KIND);
    if (kind == null || !STREAM_KINDS.contains(kind)) {
      throw new IllegalArgumentException(
          "Table " + path + " is not a streaming table (no lakestream.kind): it is not tiered");
    }
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    Instant now = clock.instant();
    Duration interval;
    try {
      interval = TieringConfig.interval(metadata.properties());
    } catch (IllegalArgumentException e) {
      interval = TieringConfig.DEFAULT_INTERVAL;
    }
    Optional<TieringService.TableState> state = service.state(path);

    TieredOffsets offsets = null;
    String offsetsError = null;
    try {
      offsets = StartOffsets.resolve(path, metadata, table.io(), offsetsStore, false).from();
    } catch (IllegalArgumentException | TieringException e) {
      offsetsError = e.getMessage();
    }
    List<TieringStatus.BucketStatus> buckets = new ArrayList<>();
    if (offsets != null) {
      io.lakestream.client.Table stream;
      try {
        stream = connection.table(path);
      } catch (RpcException e) {
        if (e.error() == ErrorCode.UNKNOWN_TABLE) {
          throw new NoSuchTableException("Table does not exist: %s", path);
        }
        throw e;
      }
      for (String partition : stream.partitions()) {
        for (int bucket = 0; bucket < stream.buckets(); bucket++) {
          buckets.add(bucket(stream, partition, bucket, offsets, now));
        }
      }
    }
    return new TieringStatus(
        path,
        kind,
        now,
        state.isEmpty()
            ? TieringStatus.State.PENDING
            : state.get().failed() ? TieringStatus.State.FAILED : TieringStatus.State.ACTIVE,
        state.map(TieringService.TableState::interval).orElse(interval),
        state.map(TieringService.TableState::nextRound).orElse(null),
        buckets,
        lastTieredSnapshot(metadata),
        state.map(TieringService.TableState::lastRound).map(TieringRound::outcome).orElse(null),
        state.map(TieringService.TableState::lastError).orElse(null),
        offsetsError,
        service.statistics().totals(path));
  }

  /** What the service's rounds have done since it started (for metrics). */
  public TieringStatistics statistics() {
    return service.statistics();
  }

  /**
   * The status of every table the service tiers. A table whose status cannot be read (dropped
   * meanwhile, say) is left out.
   */
  public List<TieringStatus> statuses() {
    List<TieringStatus> statuses = new ArrayList<>();
    for (TablePath path : service.tables().keySet()) {
      try {
        statuses.add(status(path));
      } catch (RuntimeException e) {
        LOG.debug("Cannot read the tiering status of {}", path, e);
      }
    }
    return statuses;
  }

  private static TieringStatus.BucketStatus bucket(
      io.lakestream.client.Table stream,
      String partition,
      int bucket,
      TieredOffsets offsets,
      Instant now) {
    long tiered = offsets.offset(partition, bucket);
    long highWatermark = stream.latestOffset(partition, bucket);
    long lagRows = Math.max(0, highWatermark - tiered);
    Instant oldest = null;
    if (lagRows > 0) {
      long appended;
      try {
        appended = stream.commitTimestamp(partition, bucket, tiered);
      } catch (RpcException e) {
        if (e.error() != ErrorCode.OFFSET_OUT_OF_RANGE) {
          throw e;
        }
        // Retention deleted records that were never tiered; the oldest left is the log's first.
        appended =
            stream.commitTimestamp(partition, bucket, stream.earliestOffset(partition, bucket));
      }
      if (appended >= 0) {
        oldest = Instant.ofEpochMilli(appended);
      }
    }
    double lagSeconds =
        oldest == null ? 0 : Math.max(0, Duration.between(oldest, now).toMillis() / 1000.0);
    return new TieringStatus.BucketStatus(
        partition, bucket, tiered, highWatermark, lagRows, oldest, lagSeconds);
  }

  private static TieringStatus.TieredSnapshot lastTieredSnapshot(TableMetadata metadata) {
    return TieredOffsets.tieredSnapshot(metadata)
        .map(
            snapshot ->
                new TieringStatus.TieredSnapshot(
                    snapshot.snapshotId(), Instant.ofEpochMilli(snapshot.timestampMillis())))
        .orElse(null);
  }
}
