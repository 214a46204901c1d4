/**
 * Primary-key table storage: per-bucket {@link io.lakestream.store.kv.KvTablet}s hold the rows by
 * key in RocksDB, merged by the table's {@link io.lakestream.store.kv.MergeEngine} and materialised
 * from the bucket's changelog, which the log stores as the write-ahead log. Keys and values are
 * encoded by {@link io.lakestream.store.kv.KeyCodec} and {@link io.lakestream.store.kv.RowCodec}.
 *
 * <p>Depends on {@code io.lakestream.store.log} (the changelog) and never on the services in {@code
 * io.lakestream.store}: what it needs of a table comes as a {@link
 * io.lakestream.store.kv.KvTableDefinition}, and its refusals are its own exceptions ({@link
 * io.lakestream.store.kv.InvalidMutationException}), which the services map to wire codes.
 */
package io.lakestream.store.kv;
