/**
 * Trino connector: splits over the lake snapshot plus log-tail splits, with projection and filter
 * pushdown.
 */
package io.lakestream.trino;
