package io.lakestream.lake.auth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Bearer tokens for the stream RPC from OAuth2 client credentials, taken from the server's token
 * endpoint ({@code /v1/oauth/tokens}, the one Iceberg REST clients use) and renewed when half of a
 * token's lifetime has passed. The secret and the tokens never reach a log or a message.
 *
 * <p>Thread safe.
 */
public final class OAuthTokens implements Supplier<String> {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI endpoint;
  private final String clientId;
  private final String clientSecret;
  private final Clock clock;
  private final HttpClient http;
  private String token; // guarded by this
  private Instant renewAt = Instant.MIN; // guarded by this

  /**
   * @param catalogUri the server's REST endpoint
   * @param credential {@code client-id:client-secret}
   */
  public OAuthTokens(URI catalogUri, String credential, Clock clock) {
    requireNonNull(catalogUri, "catalogUri is null");
    requireNonNull(credential, "credential is null");
    String base = catalogUri.toString();
    this.endpoint = URI.create((base.endsWith("/") ? base : base + "/") + "v1/oauth/tokens");
    int colon = credential.indexOf(':');
    this.clientId = credential.substring(0, colon);
    this.clientSecret = credential.substring(colon + 1);
    this.clock = requireNonNull(clock, "clock is null");
    this.http = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
  }

  /**
   * A token valid for at least half its lifetime.
   *
   * @throws TokenException when the endpoint cannot be reached or refuses the client
   */
  @Override
  public synchronized String get() {
    Instant now = clock.instant();
    if (token == null || !now.isBefore(renewAt)) {
      fetch(now);
    }
    return token;
  }

  private void fetch(Instant now) {
    String form =
        "grant_type=client_credentials&client_id="
            + URLEncoder.encode(clientId, StandardCharsets.UTF_8)
            + "&client_secret="
            + URLEncoder.encode(clientSecret, StandardCharsets.UTF_8)
            + "&scope=catalog";
    HttpRequest request =
        HttpRequest.newBuilder(endpoint)
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new TokenException(
          "Cannot reach the token endpoint " + endpoint + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TokenException("Interrupted while fetching a token from " + endpoint, e);
    }
    if (response.statusCode() != 200) {
      throw new TokenException(
          "The token endpoint "
              + endpoint
              + " refused client "
              + clientId
              + " with HTTP "
              + response.statusCode(),
          null);
    }
    try {
      JsonNode body = JSON.readTree(response.body());
      String accessToken = body.path("access_token").asText(null);
      if (accessToken == null) {
        throw new IOException("no access_token in the response");
      }
      long lifetime = body.path("expires_in").asLong(3600);
      token = accessToken;
      renewAt = now.plusSeconds(Math.max(1, lifetime / 2));
    } catch (IOException e) {
      throw new TokenException(
          "The token endpoint " + endpoint + " answered without a token: " + e.getMessage(), e);
    }
  }

  /** No token could be had: the endpoint is unreachable, refused the client or sent none. */
  public static final class TokenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TokenException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
