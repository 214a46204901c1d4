/**
 * The plan model of union reads: a lake snapshot plus the log ranges after it, shared by every
 * reader of streaming tables (Flight SQL, the Trino plugin, the Flink connector).
 */
package io.lakestream.client.scan;
