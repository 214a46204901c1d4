/**
 * Arrow Flight SQL endpoint: SQL over union reads of the lake snapshot and the log tail, metadata
 * commands, prepared statements and ingest.
 */
package io.lakestream.flight;
