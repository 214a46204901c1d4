package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.catalog.Warehouses;
import io.lakestream.client.TablePath;
import io.lakestream.stream.StreamTableProperties;
import io.lakestream.tiering.TieringStatistics;
import io.lakestream.tiering.TieringStatus;
import io.lakestream.tiering.TieringStatusReader;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;

/**
 * Serves Lakestream's {@link Route#TABLE_TIERING} ({@code GET
 * /v1/{prefix}/namespaces/{namespace}/tables/{table}/tiering}: how far a streaming table is tiered,
 * see {@code docs/tiering.md} and the {@code openapi} module) and hands every other route to the
 * Iceberg handlers.
 *
 * <p>Answers: 200 with the status; 404 {@code NoSuchTableException} for a table that does not
 * exist; 400 for a table that is not a streaming table; 200 with {@code "state":"off"} and the
 * reason when this server does not run tiering; 503 while tiering is still starting.
 */
public final class TieringStatusHandler implements RestHandler {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final RestHandler delegate;
  private final Warehouses warehouses;
  private final Supplier<Optional<TieringStatusReader>> reader;
  private final String offReason;

  /**
   * @param reader the status reader once tiering runs
   * @param offReason why this server does not run tiering, or null when it does (or will once it
   *     has started)
   */
  public TieringStatusHandler(
      RestHandler delegate,
      Warehouses warehouses,
      Supplier<Optional<TieringStatusReader>> reader,
      String offReason) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.warehouses = requireNonNull(warehouses, "warehouses is null");
    this.reader = requireNonNull(reader, "reader is null");
    this.offReason = offReason;
  }

  @Override
  public Optional<RestResponse> handleWithoutWaiting(RestRequest request) {
    return request.route() == Route.TABLE_TIERING
        ? Optional.empty()
        : delegate.handleWithoutWaiting(request);
  }

  @Override
  public RestResponse handle(RestRequest request) {
    if (request.route() != Route.TABLE_TIERING) {
      return delegate.handle(request);
    }
    TableIdentifier identifier = identifier(request);
    TableMetadata metadata =
        warehouses
            .catalog(request.warehouse())
            .currentTableMetadata(identifier)
            .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", identifier));
    String kind = metadata.properties().get(StreamTableProperties.KIND);
    if (kind == null) {
      throw new BadRequestException(
          "Table %s is not a streaming table (it has no %s): it is not tiered",
          identifier, StreamTableProperties.KIND);
    }
    Optional<TieringStatusReader> statusReader = reader.get();
    if (statusReader.isEmpty()) {
      if (offReason == null) {
        throw new ServiceUnavailableException("Tiering is starting; ask again in a moment");
      }
      ObjectNode off = JSON.objectNode();
      identify(off, identifier);
      off.put("kind", kind);
      off.put("state", "off");
      off.put("reason", offReason);
      return RestResponse.ok(off);
    }
    String warehouse =
        request.warehouse() == null || request.warehouse().equals(warehouses.defaultWarehouse())
            ? null
            : request.warehouse();
    TieringStatus status =
        statusReader
            .get()
            .status(
                new TablePath(
                    warehouse, Arrays.asList(identifier.namespace().levels()), identifier.name()));
    return RestResponse.ok(toJson(identifier, status));
  }

  private static TableIdentifier identifier(RestRequest request) {
    String namespace = request.pathParameter("namespace");
    String name = request.pathParameter("table");
    if (namespace == null || namespace.isEmpty() || name == null || name.isEmpty()) {
      throw new BadRequestException("A table needs a namespace and a name");
    }
    return TableIdentifier.of(Namespace.of(namespace.split("\u001f", -1)), name);
  }

  private static void identify(ObjectNode node, TableIdentifier identifier) {
    ArrayNode namespace = node.putArray("namespace");
    Arrays.stream(identifier.namespace().levels()).forEach(namespace::add);
    node.put("name", identifier.name());
  }

  /** The JSON of a status, as the {@code TieringStatus} schema of the OpenAPI document has it. */
  static ObjectNode toJson(TableIdentifier identifier, TieringStatus status) {
    ObjectNode node = JSON.objectNode();
    identify(node, identifier);
    node.put("kind", status.kind());
    node.put("state", status.state().name().toLowerCase(Locale.ROOT));
    node.put("as-of-ms", status.asOf().toEpochMilli());
    node.put("interval-ms", status.interval().toMillis());
    putMillis(node, "next-round-ms", status.nextRound());
    node.put("lag-rows", status.lagRows());
    node.put("lag-seconds", status.lagSeconds());
    if (status.lastSnapshot() == null) {
      node.putNull("last-snapshot");
    } else {
      ObjectNode snapshot = node.putObject("last-snapshot");
      snapshot.put("snapshot-id", status.lastSnapshot().snapshotId());
      snapshot.put("timestamp-ms", status.lastSnapshot().committedAt().toEpochMilli());
    }
    node.put(
        "last-outcome",
        status.lastOutcome() == null
            ? null
            : status.lastOutcome().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    node.put("last-error", status.lastError());
    node.put("offsets-error", status.offsetsError());
    TieringStatistics.TableTotals totals = status.totals();
    ObjectNode rounds = node.putObject("rounds");
    rounds.put("committed", totals.committedRounds());
    rounds.put("failed", totals.failedRounds());
    rounds.put("rows", totals.rows());
    if (totals.lastCommit() == null) {
      rounds.putNull("last-commit");
    } else {
      ObjectNode last = rounds.putObject("last-commit");
      last.put("started-ms", totals.lastCommit().started().toEpochMilli());
      last.put("duration-ms", totals.lastCommit().duration().toMillis());
      last.put("rows", totals.lastCommit().rows());
      last.put("snapshot-id", totals.lastCommit().snapshotId());
    }
    ArrayNode buckets = node.putArray("buckets");
    for (TieringStatus.BucketStatus bucket : status.buckets()) {
      ObjectNode entry = buckets.addObject();
      entry.put("partition", bucket.partition());
      entry.put("bucket", bucket.bucket());
      entry.put("tiered-offset", bucket.tieredOffset());
      entry.put("high-watermark", bucket.highWatermark());
      entry.put("lag-rows", bucket.lagRows());
      entry.put("lag-seconds", bucket.lagSeconds());
      putMillis(entry, "oldest-untiered-ms", bucket.oldestUntieredAppendedAt());
    }
    return node;
  }

  private static void putMillis(ObjectNode node, String field, Instant instant) {
    if (instant == null) {
      node.putNull(field);
    } else {
      node.put(field, instant.toEpochMilli());
    }
  }
}
