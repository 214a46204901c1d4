package io.lakestream.flight;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;
import org.apache.iceberg.exceptions.NotAuthorizedException;

/**
 * Authenticates every Flight call with the catalog's credentials: HTTP Basic with a client id and
 * secret (answered with a bearer token in the response headers, Flight's basic-to-bearer handshake)
 * or a bearer token the catalog issued. Thread safe.
 */
final class TokenAuthenticator implements CallHeaderAuthenticator {
  private final FlightSqlAccess access;

  TokenAuthenticator(FlightSqlAccess access) {
    this.access = requireNonNull(access, "access is null");
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    String authorization = headers.get(Auth2Constants.AUTHORIZATION_HEADER);
    if (authorization == null || authorization.isBlank()) {
      throw CallStatus.UNAUTHENTICATED
          .withDescription(
              "Authentication required: send a client id and secret (user and password) or a"
                  + " bearer token")
          .toRuntimeException();
    }
    try {
      if (startsWith(authorization, Auth2Constants.BASIC_PREFIX)) {
        String decoded =
            new String(
                Base64.getDecoder()
                    .decode(authorization.substring(Auth2Constants.BASIC_PREFIX.length()).trim()),
                StandardCharsets.UTF_8);
        int colon = decoded.indexOf(':');
        if (colon < 0) {
          throw new NotAuthorizedException("Malformed basic credentials");
        }
        String token = access.issueToken(decoded.substring(0, colon), decoded.substring(colon + 1));
        String principal = access.principal(token);
        return new AuthResult() {
          @Override
          public String getPeerIdentity() {
            return principal;
          }

          @Override
          public void appendToOutgoingHeaders(CallHeaders outgoing) {
            if (outgoing.get(Auth2Constants.AUTHORIZATION_HEADER) == null) {
              outgoing.insert(
                  Auth2Constants.AUTHORIZATION_HEADER, Auth2Constants.BEARER_PREFIX + token);
            }
          }
        };
      }
      if (startsWith(authorization, Auth2Constants.BEARER_PREFIX)) {
        String principal =
            access.principal(authorization.substring(Auth2Constants.BEARER_PREFIX.length()).trim());
        return () -> principal;
      }
    } catch (NotAuthorizedException | IllegalArgumentException e) {
      throw CallStatus.UNAUTHENTICATED.withDescription(e.getMessage()).toRuntimeException();
    }
    throw CallStatus.UNAUTHENTICATED
        .withDescription("Unsupported authorization scheme: use Basic or Bearer")
        .toRuntimeException();
  }

  private static boolean startsWith(String value, String prefix) {
    return value.regionMatches(true, 0, prefix, 0, prefix.length());
  }
}
