/**
 * Reading SQL text without running it: the tables and columns a query names (DuckDB's own parser),
 * the functions and files a query may not name (the first lock of the sandbox), and the tokens of
 * the statements the endpoint interprets itself.
 */
package io.lakestream.flight.sql;
