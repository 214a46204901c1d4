package io.lakestream.auth;

import java.util.List;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.ForbiddenException;

/**
 * Decides from the configured grants whether a principal may act on a scope, and who may read the
 * server's metrics. Immutable.
 */
public final class Authorizer {
  private final List<Grant> grants;
  private final Set<String> metricsPrincipals;

  /** An authorizer under which only admins of every warehouse may read the metrics. */
  public Authorizer(List<Grant> grants) {
    this(grants, Set.of());
  }

  /**
   * @param metricsPrincipals principals that may read the metrics besides admins of every warehouse
   */
  public Authorizer(List<Grant> grants, Set<String> metricsPrincipals) {
    this.grants = List.copyOf(grants);
    this.metricsPrincipals = Set.copyOf(metricsPrincipals);
  }

  /**
   * Checks that a principal may read the server's metrics ({@code /metrics}), which describe every
   * warehouse and table: the unrestricted principal, a principal with {@link Privilege#ADMIN} on
   * every warehouse ({@code *}), or one named in {@code auth.metrics-principals}.
   *
   * @throws ForbiddenException naming the principal and how to grant access
   */
  public void checkMetrics(Principal principal) {
    if (principal.unrestricted() || metricsPrincipals.contains(principal.name())) {
      return;
    }
    for (Grant grant : grants) {
      if (grant.principal().equals(principal.name())
          && grant.warehouse() == null
          && grant.privilege().includes(Privilege.ADMIN)) {
        return;
      }
    }
    throw new ForbiddenException(
        "Principal %s may not read metrics: it needs admin on * or a place in"
            + " auth.metrics-principals",
        principal.name());
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
