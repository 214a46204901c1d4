package io.lakestream.flight.server;

import static java.util.Objects.requireNonNull;

import io.lakestream.flight.FlightSqlAccess;
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
 * or a bearer token the catalog issued.
 *
 * <p>Both are also answered with a cookie {@value #TOKEN_COOKIE} holding the bearer token, and a
 * call without an {@code authorization} header is authenticated by that cookie. Clients that keep
 * cookies for every call of a connection (Flight's {@code ClientCookieMiddleware}, ADBC's option
 * {@code adbc.flight.sql.rpc.with_cookie_middleware}) so stay authenticated on calls their driver
 * sends without its credentials: ADBC's Java driver (0.20) executes prepared statements, and so its
 * bulk ingest, that way. The cookie is the same token as the bearer header, nothing more. Thread
 * safe.
 */
final class TokenAuthenticator implements CallHeaderAuthenticator {
  /** The cookie that carries the bearer token. */
  static final String TOKEN_COOKIE = "lakestream-token";

  private final FlightSqlAccess access;

  TokenAuthenticator(FlightSqlAccess access) {
    this.access = requireNonNull(access, "access is null");
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    String authorization = headers.get(Auth2Constants.AUTHORIZATION_HEADER);
    if (authorization == null || authorization.isBlank()) {
      String cookie = tokenCookie(headers);
      if (cookie != null) {
        try {
          String principal = access.principal(cookie);
          return () -> principal;
        } catch (NotAuthorizedException | IllegalArgumentException e) {
          throw CallStatus.UNAUTHENTICATED
              .withDescription("Cookie " + TOKEN_COOKIE + ": " + e.getMessage())
              .toRuntimeException();
        }
      }
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
            outgoing.insert("set-cookie", TOKEN_COOKIE + "=" + token);
          }
        };
      }
      if (startsWith(authorization, Auth2Constants.BEARER_PREFIX)) {
        String token = authorization.substring(Auth2Constants.BEARER_PREFIX.length()).trim();
        String principal = access.principal(token);
        boolean cookieCurrent = token.equals(tokenCookie(headers));
        return new AuthResult() {
          @Override
          public String getPeerIdentity() {
            return principal;
          }

          @Override
          public void appendToOutgoingHeaders(CallHeaders outgoing) {
            if (!cookieCurrent) {
              outgoing.insert("set-cookie", TOKEN_COOKIE + "=" + token);
            }
          }
        };
      }
    } catch (NotAuthorizedException | IllegalArgumentException e) {
      throw CallStatus.UNAUTHENTICATED.withDescription(e.getMessage()).toRuntimeException();
    }
    throw CallStatus.UNAUTHENTICATED
        .withDescription("Unsupported authorization scheme: use Basic or Bearer")
        .toRuntimeException();
  }

  /** The token of the {@value #TOKEN_COOKIE} cookie of a request, or null. */
  private static String tokenCookie(CallHeaders headers) {
    Iterable<String> cookies = headers.getAll("cookie");
    if (cookies == null) {
      return null;
    }
    for (String header : cookies) {
      for (String cookie : header.split(";")) {
        String trimmed = cookie.trim();
        if (trimmed.startsWith(TOKEN_COOKIE + "=")) {
          String value = trimmed.substring(TOKEN_COOKIE.length() + 1).trim();
          return value.isEmpty() ? null : value;
        }
      }
    }
    return null;
  }

  private static boolean startsWith(String value, String prefix) {
    return value.regionMatches(true, 0, prefix, 0, prefix.length());
  }
}
