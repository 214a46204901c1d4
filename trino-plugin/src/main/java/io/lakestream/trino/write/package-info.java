/**
 * Writes to streaming tables through Trino: {@code CREATE TABLE} with Lakestream's table properties
 * ({@link io.lakestream.trino.write.StreamTableProperties}), and {@code INSERT}, {@code CREATE
 * TABLE AS}, {@code DELETE}, {@code UPDATE} and {@code MERGE} as the stream client's appends,
 * upserts and deletes ({@link io.lakestream.trino.write.StreamPageSink}, {@link
 * io.lakestream.trino.write.StreamMergeSink}), never straight into lake files.
 */
package io.lakestream.trino.write;
