package io.lakestream.store;

import java.util.List;
import java.util.Optional;

/**
 * The stream store's view of the catalog: which tables have streams, and their shape. The server
 * wires it to the metadata store; tests use an in-memory implementation. Thread safe.
 */
public interface TableResolver {
  /**
   * A stream table by catalog path, as the catalog has it now; a null warehouse means the default
   * warehouse.
   */
  Optional<StreamTable> resolve(String warehouse, List<String> namespace, String name);

  /**
   * A stream table by id, as the catalog had it at most a moment ago (an implementation may cache
   * for a short while; a drop in this process is seen at once); empty once the table is dropped. A
   * caller that finds the answer stale (a batch of a schema id it does not list) asks {@link
   * #resolveFresh}.
   */
  Optional<StreamTable> resolveById(String tableId);

  /**
   * A stream table by id if {@link #resolveById} can answer without reading the catalog (from its
   * cache); empty otherwise, or once the table is dropped. Never blocks.
   */
  default Optional<StreamTable> resolveCachedById(String tableId) {
    return Optional.empty();
  }

  /** A stream table by id, as the catalog has it now. */
  default Optional<StreamTable> resolveFresh(String tableId) {
    return resolveById(tableId);
  }
}
