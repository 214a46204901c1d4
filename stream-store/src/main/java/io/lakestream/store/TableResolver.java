package io.lakestream.store;

import java.util.List;
import java.util.Optional;

/**
 * The stream store's view of the catalog: which tables have streams, and their shape. The server
 * wires it to the metadata store; tests use an in-memory implementation. Thread safe; answers
 * reflect the catalog at the time of the call.
 */
public interface TableResolver {
  /** A stream table by catalog path; a null warehouse means the default warehouse. */
  Optional<StreamTable> resolve(String warehouse, List<String> namespace, String name);

  /** A stream table by id; empty once the table is dropped. */
  Optional<StreamTable> resolveById(String tableId);
}
