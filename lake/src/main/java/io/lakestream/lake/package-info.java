/**
 * The lake-format SPI: the small interfaces through which tiering and the catalog reach a lake
 * format (Iceberg, Paimon) without naming its classes. A table's format is its {@code
 * lakestream.lake-format} property; each interface's implementations are found by that name.
 *
 * <ul>
 *   <li>{@link io.lakestream.lake.LakeTableValidator}: what a streaming table of the format may be
 *       created or changed into, and which snapshots may be committed to it (the catalog calls it
 *       on every commit, through {@link io.lakestream.lake.LakeTableValidators});
 *   <li>{@link io.lakestream.lake.LakeTierer}: one tiering round, which reads the log past the
 *       offsets the lake table has committed, writes the format's data files and commits them
 *       together with the offsets they reach (the tiering service picks the table's tierer from a
 *       registry keyed by format).
 * </ul>
 *
 * <p>A format in a module of its own (Paimon's, in {@code lake-paimon}, so that readers of Iceberg
 * tables never load Paimon) also registers a {@link io.lakestream.lake.LakeTiererFactory}, through
 * which the tiering module builds its tierer without depending on it.
 *
 * <p>Not split out yet (the tierers still do them inside a round): a table creator, a data writer
 * and a reader of committed offsets per format.
 */
package io.lakestream.lake;
