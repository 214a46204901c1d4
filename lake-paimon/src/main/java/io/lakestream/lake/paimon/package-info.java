/**
 * Tiering into Apache Paimon tables ({@code lakestream.lake-format=paimon}): {@link
 * io.lakestream.lake.paimon.PaimonTableTiering} runs a round, {@link
 * io.lakestream.lake.paimon.PaimonTables} lays out and creates the Paimon table, and the catalog
 * entry follows Paimon's generated Iceberg metadata.
 */
package io.lakestream.lake.paimon;
