package io.lakestream.store.kv;

/** {@code first-row}: the first row of a key stays; later writes are ignored, deletes refused. */
final class FirstRowMergeEngine implements MergeEngine {
  @Override
  public Object[] upsert(Object[] current, Mutation mutation) {
    return current != null ? current : mutation.overlay(null);
  }

  @Override
  public Object[] delete(Object[] current, Mutation mutation) {
    throw new DeleteNotSupportedException(
        "Tables with merge engine first-row do not accept deletes: the first row of a key is kept");
  }
}
