/**
 * Storage engine: per-node managers own per-bucket log tablets (Arrow batch segments with offset
 * and time indexes) and KV tablets (RocksDB), behind the write, fetch and lookup services of the
 * stream RPC. Knows nothing of HTTP or SQL.
 */
package io.lakestream.store;
