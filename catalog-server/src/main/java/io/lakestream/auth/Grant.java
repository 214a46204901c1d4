package io.lakestream.auth;

import static java.util.Objects.requireNonNull;

import io.lakestream.config.ConfigException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.catalog.Namespace;

/**
 * A privilege given to a principal on a scope: every warehouse ({@code *}), one warehouse, or one
 * namespace of a warehouse together with the namespaces below it.
 *
 * @param warehouse the warehouse, or null for every warehouse
 * @param namespace the namespace, or empty for the whole warehouse
 */
public record Grant(String principal, Privilege privilege, String warehouse, Namespace namespace) {
  public Grant {
    requireNonNull(principal, "principal is null");
    requireNonNull(privilege, "privilege is null");
    requireNonNull(namespace, "namespace is null");
  }

  /** Whether this grant allows {@code privilege} on a namespace of a warehouse. */
  public boolean allows(Privilege wanted, String targetWarehouse, Namespace target) {
    if (!privilege.includes(wanted)) {
      return false;
    }
    if (warehouse == null) {
      return true;
    }
    if (!warehouse.equals(targetWarehouse)) {
      return false;
    }
    String[] scope = namespace.levels();
    String[] levels = target.levels();
    return levels.length >= scope.length
        && Arrays.equals(scope, Arrays.copyOf(levels, scope.length));
  }

  /**
   * Parses {@code principal:privilege:scope} entries separated by commas, where scope is {@code *},
   * {@code warehouse} or {@code warehouse.namespace.level}; for example {@code
   * etl:write:default.sales, analyst:read:*}.
   */
  public static List<Grant> parseAll(String text) {
    List<Grant> grants = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return grants;
    }
    for (String entry : text.split(",")) {
      String[] parts = entry.trim().split(":", -1);
      if (parts.length != 3 || parts[0].isBlank() || parts[2].isBlank()) {
        throw new ConfigException(
            "Invalid grant '"
                + entry.trim()
                + "' in auth.grants: expected principal:privilege:scope");
      }
      Privilege privilege;
      try {
        privilege = Privilege.valueOf(parts[1].trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "Invalid grant '"
                + entry.trim()
                + "' in auth.grants: privilege must be read, write or admin");
      }
      String scope = parts[2].trim();
      if (scope.equals("*")) {
        grants.add(new Grant(parts[0].trim(), privilege, null, Namespace.empty()));
      } else {
        String[] levels = scope.split("\\.");
        grants.add(
            new Grant(
                parts[0].trim(),
                privilege,
                levels[0],
                Namespace.of(Arrays.copyOfRange(levels, 1, levels.length))));
      }
    }
    return grants;
  }
}
