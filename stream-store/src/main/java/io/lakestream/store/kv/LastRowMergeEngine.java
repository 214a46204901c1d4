package io.lakestream.store.kv;

/** {@code last-row}: the newest write wins; a delete removes the row. */
final class LastRowMergeEngine implements MergeEngine {
  @Override
  public Object[] upsert(Object[] current, Mutation mutation) {
    return mutation.overlay(current);
  }

  @Override
  public Object[] delete(Object[] current, Mutation mutation) {
    return null;
  }
}
