/**
 * Writes through Flight SQL: bulk ingest of Arrow batches into streaming tables (statement ingest,
 * path puts, prepared inserts) and the SQL writes the endpoint interprets itself (CREATE and DROP
 * TABLE, INSERT, DELETE), all appended through the stream store's client.
 */
package io.lakestream.flight.write;
