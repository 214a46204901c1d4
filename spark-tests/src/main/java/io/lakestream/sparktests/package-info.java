/**
 * Spark as a client of Lakestream's Iceberg REST catalog: a session factory that points Iceberg's
 * Spark catalog at a Lakestream server, and a Spark SQL session driven over standard input and
 * output that engine tests in other modules start as a separate JVM (so Spark never shares a
 * classpath with them).
 */
package io.lakestream.sparktests;
