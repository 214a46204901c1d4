/**
 * Tiering: schedules rounds per table ({@link io.lakestream.tiering.TieringService}), and the
 * Iceberg lake format behind the lake SPI of {@link io.lakestream.lake}: {@link
 * io.lakestream.tiering.IcebergTableTiering} composes {@link
 * io.lakestream.tiering.IcebergTableCreator}, {@link io.lakestream.tiering.StartOffsets} (the
 * committed offsets), {@link io.lakestream.tiering.IcebergDataWriter} (Parquet data and equality
 * delete files) and {@link io.lakestream.tiering.IcebergCommitter} (one snapshot whose summary
 * records the offsets it contains), plus compaction, snapshot expiry and the orphan-file sweep.
 * Depends only on the client and lake modules, so it also runs as a Flink job; other formats'
 * tierers come from {@link io.lakestream.lake.LakeTiererFactory} ({@link
 * io.lakestream.tiering.LakeTierers}).
 */
package io.lakestream.tiering;
