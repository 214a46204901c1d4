package io.lakestream.rest;

import java.util.Optional;

/**
 * A route's behaviour as a function: request in, response out. Exceptions are Iceberg exceptions
 * (or other runtime exceptions) that the HTTP layer maps with {@link RestErrors}. Implementations
 * are thread safe.
 */
@FunctionalInterface
public interface RestHandler {
  RestResponse handle(RestRequest request);

  /**
   * The answer {@link #handle} would give, if it can be given from memory and reads that never wait
   * (see {@link io.lakestream.catalog.MetadataStore#loadEntityWithoutWaiting}): called on a network
   * event loop, which must not block, before the request is handed to a worker thread. Empty means
   * "handle it on a worker", and so does a thrown exception: errors are always answered by {@link
   * #handle}. Must have no effect, since the request may then be handled again. A {@code byte[]}
   * body it answers with must be one it hands out again, unchanged, to later requests for the same
   * content (the transport keeps such bodies off-heap between sends). By default every request goes
   * to a worker.
   */
  default Optional<RestResponse> handleWithoutWaiting(RestRequest request) {
    return Optional.empty();
  }
}
