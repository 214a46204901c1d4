package io.lakestream.store.kv;

/**
 * {@code versioned}: the write with the highest version wins. An upsert whose version is not higher
 * than the stored one is ignored; a delete removes the row when its version is at least the stored
 * one (a delete usually carries the image of the row it deletes, version included). A removed key
 * keeps no version: a later upsert of any version inserts it again. A stored row without a version
 * (written before the version column was added) loses to any version.
 */
final class VersionedMergeEngine implements MergeEngine {
  private final int versionPosition;
  private final String versionColumn;

  VersionedMergeEngine(int versionPosition, String versionColumn) {
    this.versionPosition = versionPosition;
    this.versionColumn = versionColumn;
  }

  @Override
  public Object[] upsert(Object[] current, Mutation mutation) {
    if (!mutation.writes(versionPosition)) {
      throw new InvalidMutationException(
          "A partial update of a versioned table must write the version column '"
              + versionColumn
              + "'");
    }
    Object version = version(mutation, "An upsert");
    if (current != null
        && current[versionPosition] != null
        && MergeEngines.compare(version, current[versionPosition]) <= 0) {
      return current;
    }
    return mutation.overlay(current);
  }

  @Override
  public Object[] delete(Object[] current, Mutation mutation) {
    Object version = version(mutation, "A delete");
    if (current == null
        || current[versionPosition] == null
        || MergeEngines.compare(version, current[versionPosition]) >= 0) {
      return null;
    }
    return current;
  }

  private Object version(Mutation mutation, String what) {
    Object version = mutation.row()[versionPosition];
    if (version == null) {
      throw new InvalidMutationException(
          what + " of a versioned table has a null version column '" + versionColumn + "'");
    }
    return version;
  }
}
