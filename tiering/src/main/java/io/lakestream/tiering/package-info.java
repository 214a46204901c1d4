/**
 * Tiering: reads each bucket's log from its tiered offset to the high watermark, writes Parquet
 * data files and commits one lake snapshot whose summary records the offsets it contains. Depends
 * only on the client module, so it also runs as a Flink job.
 */
package io.lakestream.tiering;
