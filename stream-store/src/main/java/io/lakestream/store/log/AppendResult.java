package io.lakestream.store.log;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.CompletableFuture;

/**
 * Where an appended batch landed.
 *
 * @param baseOffset offset of its first record
 * @param lastOffset offset of its last record
 * @param duplicate the batch repeated an already appended one (same writer and sequence) and was
 *     not written again; the offsets are those of the original
 * @param durable completes when the batch is durable per the flush mode and visible to readers
 */
public record AppendResult(
    long baseOffset, long lastOffset, boolean duplicate, CompletableFuture<Void> durable) {
  public AppendResult {
    requireNonNull(durable, "durable is null");
  }
}
