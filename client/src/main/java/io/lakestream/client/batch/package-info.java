/**
 * Internal: the log batch format, as stored on disk by the server and sent on the wire by writers
 * and fetches; shared with the server, not for applications.
 *
 * <p>A {@link io.lakestream.client.batch.LogBatch} is a fixed header (offsets, CRC, writer id and
 * sequence, schema id) followed by a {@link io.lakestream.client.batch.BatchPayload}: column
 * statistics and an Arrow IPC record batch.
 */
package io.lakestream.client.batch;
