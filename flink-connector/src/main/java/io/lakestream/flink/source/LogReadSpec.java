package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.arrow.BatchFilter;
import java.io.Serializable;
import java.util.List;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * What a log source reads of each row: the columns (by name, in the order the source produces them)
 * with their Flink types, and the filter the server applies before sending batches (it may let
 * through rows that do not match; Flink still applies the query's filter).
 */
record LogReadSpec(List<String> columns, List<LogicalType> types, List<PushedFilter> filters)
    implements Serializable {
  LogReadSpec {
    columns = List.copyOf(requireNonNull(columns, "columns is null"));
    types = List.copyOf(requireNonNull(types, "types is null"));
    filters = List.copyOf(requireNonNull(filters, "filters is null"));
    if (columns.size() != types.size()) {
      throw new IllegalArgumentException("columns and types differ in length");
    }
  }

  /** The server-side filter over a table whose current schema is {@code schema}. */
  BatchFilter filter(org.apache.arrow.vector.types.pojo.Schema schema) {
    return PushedFilter.batchFilter(filters, schema);
  }
}
