/**
 * The Iceberg side of the lake module, shared by readers and tiering: the {@link
 * io.lakestream.lake.LakeCatalog} over Iceberg catalogs ({@link
 * io.lakestream.lake.iceberg.IcebergLakeCatalog}) and Iceberg's {@link
 * io.lakestream.lake.LakeTableValidator}. Iceberg's table creator, data writer and committer write
 * Parquet with DuckDB and live in the tiering module ({@code io.lakestream.tiering}).
 */
package io.lakestream.lake.iceberg;
