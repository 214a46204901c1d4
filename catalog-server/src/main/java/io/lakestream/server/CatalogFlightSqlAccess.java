package io.lakestream.server;

import static java.util.Objects.requireNonNull;

import io.lakestream.auth.Authorizer;
import io.lakestream.auth.Principal;
import io.lakestream.auth.Privilege;
import io.lakestream.auth.TokenService;
import io.lakestream.flight.FlightSqlAccess;
import java.util.List;
import org.apache.iceberg.catalog.Namespace;

/**
 * Flight SQL access with the catalog's clients, tokens and grants ({@code auth.mode=oauth2}): the
 * same client id, secret and tokens as the REST catalog and the stream RPC.
 */
final class CatalogFlightSqlAccess implements FlightSqlAccess {
  private final TokenService tokens;
  private final Authorizer authorizer;

  CatalogFlightSqlAccess(TokenService tokens, Authorizer authorizer) {
    this.tokens = requireNonNull(tokens, "tokens is null");
    this.authorizer = requireNonNull(authorizer, "authorizer is null");
  }

  @Override
  public boolean authenticationRequired() {
    return true;
  }

  @Override
  public String issueToken(String clientId, String clientSecret) {
    return tokens.issueForClient(clientId, clientSecret);
  }

  @Override
  public String principal(String token) {
    return tokens.validate(token).name();
  }

  @Override
  public void checkRead(String principal, String warehouse, List<String> namespace) {
    if (TokenService.isInternal(principal)) {
      return;
    }
    authorizer.check(
        Principal.named(principal),
        Privilege.READ,
        warehouse,
        Namespace.of(namespace.toArray(String[]::new)));
  }

  @Override
  public void checkWrite(String principal, String warehouse, List<String> namespace) {
    if (TokenService.isInternal(principal)) {
      return;
    }
    authorizer.check(
        Principal.named(principal),
        Privilege.WRITE,
        warehouse,
        Namespace.of(namespace.toArray(String[]::new)));
  }
}
