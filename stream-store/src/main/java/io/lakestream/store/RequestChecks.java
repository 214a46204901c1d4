package io.lakestream.store;

import io.lakestream.client.Partitioning;
import io.lakestream.client.TableKind;
import io.lakestream.client.arrow.BatchStatistics;
import io.lakestream.client.batch.BatchPayload;
import io.lakestream.client.batch.LogBatch;
import io.lakestream.client.rpc.ApiKey;
import io.lakestream.store.log.InvalidBatchException;

/**
 * The checks of a stream RPC request made at the service boundary, before the store is called: the
 * API version is spoken, the partition and bucket exist, the table is of the kind the request
 * needs, a batch's rows belong to the partition it is written to. Each refusal is a {@link
 * StreamRequestException} (the log's {@link InvalidBatchException} for a batch's rows), which
 * {@link RpcErrors} maps to its wire code; the messages name the table and the values. Stateless
 * and thread safe.
 */
final class RequestChecks {
  private RequestChecks() {}

  /** Refuses a request version above the API's latest (or negative). */
  static void checkVersion(ApiKey key, short version) {
    if (version > key.latestVersion() || version < 0) {
      throw new UnsupportedVersionException(
          key + " version " + version + " is not supported (latest " + key.latestVersion() + ")");
    }
  }

  /**
   * Refuses a partition or bucket the table does not have: a partitioned table needs a partition,
   * an unpartitioned one takes none, and the bucket is one of the table's.
   */
  static void checkBucket(StreamTable table, String partition, int bucket) {
    if (table.isPartitioned() && partition.isEmpty()) {
      throw new InvalidRequestException(
          "Table "
              + table.displayName()
              + " is partitioned: name the partition (request version 1 or later)");
    }
    if (!table.isPartitioned() && !partition.isEmpty()) {
      throw new UnknownPartitionException(
          "Table " + table.displayName() + " is not partitioned; it has no partition " + partition);
    }
    if (bucket < 0 || bucket >= table.buckets()) {
      throw new UnknownBucketException(
          "Table "
              + table.displayName()
              + " has buckets 0.."
              + (table.buckets() - 1)
              + ", not "
              + bucket);
    }
  }

  /** Refuses a table that is not a log table, for appends. */
  static StreamTable requireLogTable(StreamTable table) {
    if (!TableKind.LOG.is(table.kind())) {
      throw new WrongTableKindException(
          TableKind.LOG,
          "Table "
              + table.displayName()
              + " is a "
              + table.kind()
              + " table; append needs a log table");
    }
    return table;
  }

  /** Refuses a table that is not a primary-key table, for the primary-key requests. */
  static StreamTable requirePrimaryKeyTable(StreamTable table) {
    if (!table.isPrimaryKeyTable()) {
      throw new WrongTableKindException(
          TableKind.PRIMARY_KEY,
          "Table "
              + table.displayName()
              + " is a "
              + table.kind()
              + " table, not a primary-key table");
    }
    return table;
  }

  /** Refuses a batch whose rows do not all belong to the partition it is written to. */
  static void checkPartition(StreamTable table, LogBatch batch, String partition) {
    Partitioning partitioning = table.partitioning().get(batch.schemaId());
    if (partitioning == null) {
      throw new SchemaMismatchException(
          "Schema "
              + batch.schemaId()
              + " of "
              + table.displayName()
              + " lacks a partition source column; write with the current schema");
    }
    String actual;
    try {
      actual =
          partitioning.partitionOf(BatchStatistics.parse(BatchPayload.statistics(batch.payload())));
    } catch (IllegalArgumentException e) {
      throw new InvalidBatchException(
          "Cannot place the batch in a partition of "
              + table.displayName()
              + ": "
              + e.getMessage());
    }
    if (!actual.equals(partition)) {
      throw new InvalidBatchException(
          "The batch's rows belong to partition "
              + actual
              + " of "
              + table.displayName()
              + ", not "
              + partition);
    }
  }
}
