/**
 * The lake-format SPI: the small interfaces through which tiering and the catalog reach a lake
 * format (Iceberg, Paimon) without naming its classes. A table's format is its {@code
 * lakestream.lake-format} property ({@link io.lakestream.lake.LakeFormat}); each format's
 * implementations are found by that name.
 *
 * <p>A tiering round is a {@link io.lakestream.lake.ComposedLakeTierer} of one format's pieces:
 *
 * <ul>
 *   <li>{@link io.lakestream.lake.LakeTableCreator}: opens, and creates or verifies, the lake table
 *       of a streaming table;
 *   <li>{@link io.lakestream.lake.CommittedOffsetsReader}: the offsets the lake table's latest
 *       committed state holds, where the round starts;
 *   <li>{@link io.lakestream.lake.TieringPlan}: each bucket's log range from there to its high
 *       watermark (planned by {@link io.lakestream.scan.LogRangePlanner}, shared with union reads);
 *   <li>{@link io.lakestream.lake.LakeDataWriter}: the ranges' rows into the format's data files,
 *       read with {@link io.lakestream.lake.LogRangeReader}, a primary-key table's changes folded
 *       per key by {@link io.lakestream.lake.PrimaryKeyChanges};
 *   <li>{@link io.lakestream.lake.LakeCommitter}: the files together with the offsets they reach,
 *       atomically and only if the table still holds the round's start offsets.
 * </ul>
 *
 * <p>Beside the round: {@link io.lakestream.lake.LakeTableValidator} says what a streaming table of
 * the format may be created or changed into, and which snapshots may be committed to it (the
 * catalog calls it on every commit, through {@link io.lakestream.lake.LakeTableValidators}); {@link
 * io.lakestream.lake.LakeTierer} is what the tiering service runs per table, picked from a registry
 * keyed by format. A format in a module of its own (Paimon's, in {@code lake-paimon}, so that
 * readers of Iceberg tables never load Paimon) registers a {@link
 * io.lakestream.lake.LakeTiererFactory}, through which the tiering module builds its tierer without
 * depending on it.
 *
 * <p>Sub-packages: {@code offsets} (the tiered offsets and their store), {@code iceberg} (the
 * Iceberg catalog adapter and validator), {@code paimon} (the Paimon format, module {@code
 * lake-paimon}).
 */
package io.lakestream.lake;
