/**
 * The Paimon lake format ({@code lakestream.lake-format=paimon}), behind the lake SPI of {@link
 * io.lakestream.lake}: {@link io.lakestream.lake.paimon.PaimonTableCreator} opens or creates the
 * Paimon table ({@link io.lakestream.lake.paimon.PaimonTables} lays it out) and repairs its Iceberg
 * metadata ({@link io.lakestream.lake.paimon.PaimonIcebergMetadata}); {@link
 * io.lakestream.lake.paimon.PaimonStartOffsets} reads its committed offsets; {@link
 * io.lakestream.lake.paimon.PaimonDataWriter} writes a round's files and {@link
 * io.lakestream.lake.paimon.PaimonCommitter} commits them with their offsets, after which the
 * catalog entry follows Paimon's generated Iceberg metadata ({@link
 * io.lakestream.lake.paimon.PaimonCatalogEntry}). {@link
 * io.lakestream.lake.paimon.PaimonTableTiering} composes them; {@link
 * io.lakestream.lake.paimon.PaimonTiererFactory} and {@link
 * io.lakestream.lake.paimon.PaimonTableValidator} register the format through {@link
 * java.util.ServiceLoader}.
 */
package io.lakestream.lake.paimon;
