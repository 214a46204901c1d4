/**
 * Running a read query: the engine that checks grants, builds the views of the tables a query reads
 * and runs it in a DuckDB database lent for that query (sandboxed to the query's own files), the
 * admission, limits, timeouts and cancellation of running queries, and their streamed results.
 */
package io.lakestream.flight.query;
