/**
 * What a query reads of a streaming table: the lake snapshot's files, the log tail materialized
 * from the stream store (cached per table), and the DuckDB views that union both with the pushdown
 * of a query's columns and filters. Also the tables SQL sees by warehouse and namespace.
 */
package io.lakestream.flight.scan;
