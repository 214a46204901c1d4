/**
 * The Arrow side of the log batch format: the Arrow IPC record batch that follows a log batch's
 * fixed header, the statistics stored next to it, and the mapping from Iceberg schemas to Arrow.
 *
 * <p>The data flow is: a writer builds a {@link org.apache.arrow.vector.VectorSchemaRoot}, computes
 * {@link io.lakestream.client.arrow.BatchStatistics} from it and encodes it with {@link
 * io.lakestream.client.arrow.ArrowBatchCodec#encode}; the server stores both bytes as they are. A
 * fetch with a column selection is answered with {@link
 * io.lakestream.client.arrow.ArrowBatchCodec#project}, which copies the selected columns' buffers
 * without decoding values, and a fetch with a {@link io.lakestream.client.arrow.BatchFilter} skips
 * the batches whose statistics say that no row can match. Readers decode with {@link
 * io.lakestream.client.arrow.ArrowBatchCodec#decode} and the table's Arrow schema, which {@link
 * io.lakestream.client.arrow.IcebergArrowSchemas} derives from the Iceberg schema of the batch's
 * schema id.
 *
 * <p>Everything here uses {@code arrow-memory-unsafe}; the JVM needs {@code
 * --add-opens=java.base/java.nio=ALL-UNNAMED} (and on JDK 24+ {@code
 * --sun-misc-unsafe-memory-access=allow} to silence the warning).
 */
package io.lakestream.client.arrow;
