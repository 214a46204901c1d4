/**
 * Log table storage: a node's {@link io.lakestream.store.log.LogManager} owns per-bucket {@link
 * io.lakestream.store.log.LogTablet}s, which append Arrow batches to {@link
 * io.lakestream.store.log.LogSegment}s with offset and time indexes. Also the changelog, and so the
 * write-ahead log, of primary-key tables.
 *
 * <p>Depends on no other package of the stream store; its refusals are its own exceptions ({@link
 * io.lakestream.store.log.InvalidBatchException}, {@link
 * io.lakestream.store.log.OffsetOutOfRangeException}), which the services map to wire codes.
 */
package io.lakestream.store.log;
