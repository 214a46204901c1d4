package io.lakestream.flight.sql;

import static java.util.Objects.requireNonNull;

/**
 * A table a query names, as written: {@code schema.table} or {@code catalog.schema.table}.
 *
 * @param catalog the catalog (a Lakestream warehouse), or empty when the query names none
 * @param schema the schema (a Lakestream namespace of one level)
 * @param table the table
 */
public record TableReference(String catalog, String schema, String table) {
  public TableReference {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(schema, "schema is null");
    requireNonNull(table, "table is null");
  }

  /** The name as the query wrote it, for messages. */
  @Override
  public String toString() {
    return (catalog.isEmpty() ? "" : catalog + ".") + schema + "." + table;
  }
}
