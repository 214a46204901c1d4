/** Flink catalog, source (union read, changelog, lookup) and sink for Lakestream tables. */
package io.lakestream.flink;
