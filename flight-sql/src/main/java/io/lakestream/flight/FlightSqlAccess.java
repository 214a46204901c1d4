package io.lakestream.flight;

import java.util.List;

/**
 * Who may use the Flight SQL endpoint and what they may read and write: the catalog's credentials,
 * tokens and grants, so that one client id, secret or token works on every endpoint of the server.
 *
 * <p>Implementations are thread safe. Failures are Iceberg's {@link
 * org.apache.iceberg.exceptions.NotAuthorizedException} (no valid identity) and {@link
 * org.apache.iceberg.exceptions.ForbiddenException} (an identity without the grant); their messages
 * go to the client and must not contain secrets or tokens.
 */
public interface FlightSqlAccess {
  /** Whether every call must authenticate; when false, calls carry no principal. */
  boolean authenticationRequired();

  /**
   * The client-credentials grant: a bearer token for a client id and secret.
   *
   * @throws org.apache.iceberg.exceptions.NotAuthorizedException for an unknown client or a wrong
   *     secret (one message for both)
   */
  String issueToken(String clientId, String clientSecret);

  /**
   * The principal a bearer token stands for.
   *
   * @throws org.apache.iceberg.exceptions.NotAuthorizedException for an invalid or expired token
   */
  String principal(String token);

  /**
   * Checks that a principal may read the tables of a namespace of a warehouse.
   *
   * @param principal as returned by {@link #principal}, or empty when authentication is off
   * @throws org.apache.iceberg.exceptions.ForbiddenException naming the principal and the scope
   */
  void checkRead(String principal, String warehouse, List<String> namespace);

  /**
   * Checks that a principal may write to the tables of a namespace of a warehouse (ingest).
   *
   * @param principal as returned by {@link #principal}, or empty when authentication is off
   * @throws org.apache.iceberg.exceptions.ForbiddenException naming the principal and the scope
   */
  void checkWrite(String principal, String warehouse, List<String> namespace);

  /** No authentication and no restrictions ({@code auth.mode=none}). */
  static FlightSqlAccess none() {
    return new FlightSqlAccess() {
      @Override
      public boolean authenticationRequired() {
        return false;
      }

      @Override
      public String issueToken(String clientId, String clientSecret) {
        throw new UnsupportedOperationException("Authentication is off");
      }

      @Override
      public String principal(String token) {
        throw new UnsupportedOperationException("Authentication is off");
      }

      @Override
      public void checkRead(String principal, String warehouse, List<String> namespace) {}

      @Override
      public void checkWrite(String principal, String warehouse, List<String> namespace) {}
    };
  }
}
