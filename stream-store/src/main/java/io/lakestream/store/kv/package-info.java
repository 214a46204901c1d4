/**
 * Primary-key table storage: per-bucket {@link io.lakestream.store.kv.KvTablet}s hold the rows by
 * key in RocksDB, merged by the table's {@link io.lakestream.store.kv.MergeEngine} and materialised
 * from the bucket's changelog, which the log stores as the write-ahead log. Keys and values are
 * encoded by {@link io.lakestream.store.kv.KeyCodec} and {@link io.lakestream.store.kv.RowCodec}.
 */
package io.lakestream.store.kv;
