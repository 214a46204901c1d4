/**
 * Arrow Flight SQL endpoint: SQL over union reads of the lake snapshot and the log tail, metadata
 * commands, prepared statements and ingest. This package holds the seam the embedding server
 * provides ({@link io.lakestream.flight.FlightSqlAccess}); the endpoint itself is in {@code
 * server}, which uses {@code query} (reads), {@code write} (writes), {@code scan} (views of the
 * lake and the tail) and {@code sql} (reading SQL text), in that order of dependency.
 */
package io.lakestream.flight;
