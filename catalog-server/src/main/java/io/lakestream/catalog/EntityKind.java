package io.lakestream.catalog;

/** What a catalog entry is. Tables and views share one name space within a namespace. */
public enum EntityKind {
  TABLE,
  VIEW
}
