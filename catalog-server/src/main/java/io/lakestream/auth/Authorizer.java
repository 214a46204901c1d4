package io.lakestream.auth;

import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.ForbiddenException;

/** Decides from the configured grants whether a principal may act on a scope. Immutable. */
public final class Authorizer {
  private final List<Grant> grants;

  public Authorizer(List<Grant> grants) {
    this.grants = List.copyOf(grants);
  }

  /**
   * @throws ForbiddenException naming the principal, the privilege and the scope
   */
  public void check(
      Principal principal, Privilege privilege, String warehouse, Namespace namespace) {
    if (principal.unrestricted()) {
      return;
    }
    for (Grant grant : grants) {
      if (grant.principal().equals(principal.name())
          && grant.allows(privilege, warehouse, namespace)) {
        return;
      }
    }
    throw new ForbiddenException(
        "Principal %s lacks %s privilege on %s",
        principal.name(),
        privilege.name().toLowerCase(java.util.Locale.ROOT),
        namespace.isEmpty() ? "warehouse " + warehouse : warehouse + "." + namespace);
  }
}
