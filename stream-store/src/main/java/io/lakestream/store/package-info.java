/**
 * Storage engine: per-node managers own per-bucket log tablets (Arrow batch segments with offset
 * and time indexes) and KV tablets (RocksDB), behind the write, fetch and lookup services of the
 * stream RPC. Knows nothing of HTTP or SQL.
 *
 * <p>Packages depend one way: this package (the services {@code StreamService} and {@code
 * KvService}, which decode a request, check it ({@code RequestChecks}), call the store and encode
 * the response; the catalog's view of a table, {@link io.lakestream.store.StreamTable}; and {@link
 * io.lakestream.store.RpcErrors}, the one mapping from exceptions to wire error codes) depends on
 * {@code store.kv}, {@code store.log} and {@code store.rpc}; {@code store.kv} depends on {@code
 * store.log} (a bucket's log is its state's write-ahead log); {@code store.log} and {@code
 * store.rpc} depend on no other package of the store. Nothing below this package refers back to it.
 */
package io.lakestream.store;
