/**
 * The Flight SQL endpoint on the wire: the server and its producer (metadata commands, statements,
 * prepared statements, ingest calls), authentication, client connections and the one mapping of
 * failures to Flight {@code CallStatus}es. Only {@link io.lakestream.flight.server.FlightSqlServer}
 * and its {@link io.lakestream.flight.server.FlightSqlConfig} are used from outside the module.
 */
package io.lakestream.flight.server;
