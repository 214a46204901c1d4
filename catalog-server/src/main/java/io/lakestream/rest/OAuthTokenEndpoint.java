package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import io.lakestream.auth.TokenService;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.responses.OAuthTokenResponse;

/**
 * {@code POST /v1/oauth/tokens}: the OAuth2 token endpoint that Iceberg clients (Spark, Trino,
 * Flink, PyIceberg) call with {@code credential=id:secret}. Supports the client-credentials grant
 * (credentials in the form or in HTTP Basic) and token exchange of a valid token for a fresh one
 * (how clients refresh). Errors use the OAuth2 error body ({@code error}, {@code
 * error_description}).
 */
public final class OAuthTokenEndpoint {
  private static final String CLIENT_CREDENTIALS = "client_credentials";
  private static final String TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
  private static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

  /** What the endpoint answers: a status and a JSON-serializable body. */
  public record Answer(int status, Object body) {}

  private final TokenService tokens;

  public OAuthTokenEndpoint(TokenService tokens) {
    this.tokens = requireNonNull(tokens, "tokens is null");
  }

  public Answer handle(String formBody, String authorization) {
    Map<String, String> form;
    try {
      form = RESTUtil.decodeFormData(formBody == null ? "" : formBody);
    } catch (RuntimeException e) {
      return error(400, "invalid_request", "The body is not form-encoded");
    }
    String grant = form.get("grant_type");
    try {
      if (CLIENT_CREDENTIALS.equals(grant)) {
        String clientId = form.get("client_id");
        String secret = form.get("client_secret");
        if (clientId == null
            && authorization != null
            && authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
          String decoded =
              new String(
                  Base64.getDecoder().decode(authorization.substring(6).trim()),
                  StandardCharsets.UTF_8);
          int colon = decoded.indexOf(':');
          if (colon > 0) {
            clientId = decoded.substring(0, colon);
            secret = decoded.substring(colon + 1);
          }
        }
        return issued(tokens.issueForClient(clientId, secret));
      }
      if (TOKEN_EXCHANGE.equals(grant)) {
        String subject = form.get("subject_token");
        if (subject == null) {
          return error(400, "invalid_request", "Token exchange needs a subject_token");
        }
        return issued(tokens.issue(tokens.validate(subject).name()));
      }
    } catch (NotAuthorizedException e) {
      return error(401, "invalid_client", e.getMessage());
    } catch (IllegalArgumentException e) {
      return error(400, "invalid_request", "Malformed Basic credentials");
    }
    return error(
        400,
        "unsupported_grant_type",
        "Unsupported grant_type " + grant + "; use client_credentials or token exchange");
  }

  private Answer issued(String token) {
    return new Answer(
        200,
        OAuthTokenResponse.builder()
            .withToken(token)
            .withTokenType("bearer")
            .withIssuedTokenType(ACCESS_TOKEN_TYPE)
            .setExpirationInSeconds((int) tokens.tokenLifetimeSeconds())
            .build());
  }

  private static Answer error(int status, String error, String description) {
    return new Answer(status, Map.of("error", error, "error_description", description));
  }
}
