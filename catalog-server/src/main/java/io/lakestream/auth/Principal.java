package io.lakestream.auth;

import static java.util.Objects.requireNonNull;

/**
 * Who a request acts for: a configured client id, or the subject of an external issuer's token.
 *
 * @param name the principal's name, as grants name it
 * @param unrestricted whether every privilege is granted (only when authentication is off)
 */
public record Principal(String name, boolean unrestricted) {
  /** The principal of every request when authentication is off. */
  public static final Principal ANONYMOUS = new Principal("anonymous", true);

  public Principal {
    requireNonNull(name, "name is null");
  }

  public static Principal named(String name) {
    return new Principal(name, false);
  }
}
