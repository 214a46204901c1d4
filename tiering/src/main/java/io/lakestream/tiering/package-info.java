/**
 * Tiering: reads each bucket's log from its tiered offset to the high watermark, writes Parquet
 * data files and commits one lake snapshot whose summary records the offsets it contains. Depends
 * only on the client and lake modules, so it also runs as a Flink job. The contract classes it
 * shares with readers (TieredOffsets, LogRangeReader, LakeCatalog) live in the lake module under
 * this package name.
 */
package io.lakestream.tiering;
