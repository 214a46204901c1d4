package io.lakestream.auth;

/** What a grant allows; each privilege includes the ones before it. */
public enum Privilege {
  /** Load and list namespaces, tables and views. */
  READ,
  /** Create, change, rename and drop namespaces, tables and views. */
  WRITE,
  /** Everything, including what later administrative routes add. */
  ADMIN;

  public boolean includes(Privilege other) {
    return compareTo(other) >= 0;
  }
}
