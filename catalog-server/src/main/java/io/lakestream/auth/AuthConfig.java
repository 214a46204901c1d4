package io.lakestream.auth;

import static java.util.Objects.requireNonNull;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Authentication and authorization settings.
 *
 * @param clients client id to secret, for the client-credentials grant of the token endpoint
 * @param signingKey HMAC key for the tokens this server issues; null for a random key per start
 * @param jwksUrl JWKS of an external token issuer, or null
 * @param metricsPrincipals principals that may read {@code /metrics} besides admins of every
 *     warehouse
 */
public record AuthConfig(
    AuthMode mode,
    Map<String, String> clients,
    String signingKey,
    Duration tokenLifetime,
    String jwksUrl,
    String jwtIssuer,
    String jwtAudience,
    String principalClaim,
    List<Grant> grants,
    Set<String> metricsPrincipals) {

  public static final ConfigKey<AuthMode> MODE =
      ConfigKey.choice(
          "auth.mode",
          AuthMode.class,
          AuthMode.NONE,
          "none (every request is trusted; keep bind on loopback) or oauth2 (bearer tokens)");
  public static final ConfigKey<String> CLIENTS =
      ConfigKey.secret(
          "auth.clients", "Client credentials for /v1/oauth/tokens: id:secret,id:secret");
  public static final ConfigKey<String> SIGNING_KEY =
      ConfigKey.secret(
          "auth.token-signing-key",
          "HMAC key (32+ bytes) for issued tokens; set it on every node that shares clients");
  public static final ConfigKey<Duration> TOKEN_LIFETIME =
      ConfigKey.duration("auth.token-lifetime", Duration.ofHours(1), "Lifetime of issued tokens");
  public static final ConfigKey<String> JWKS_URL =
      ConfigKey.derivedString(
          "auth.jwks-url",
          "(none)",
          "JWKS URL of an external token issuer whose JWTs are accepted");
  public static final ConfigKey<String> JWT_ISSUER =
      ConfigKey.derivedString(
          "auth.jwt-issuer", "(none)", "Required 'iss' of external JWTs (with auth.jwks-url)");
  public static final ConfigKey<String> JWT_AUDIENCE =
      ConfigKey.derivedString(
          "auth.jwt-audience", "(none)", "Required 'aud' of external JWTs, if set");
  public static final ConfigKey<String> PRINCIPAL_CLAIM =
      ConfigKey.string(
          "auth.principal-claim", "sub", "Claim of external JWTs that names the principal");
  public static final ConfigKey<String> GRANTS =
      ConfigKey.derivedString(
          "auth.grants",
          "(none)",
          "Privileges: principal:read|write|admin:*|warehouse|warehouse.namespace, comma-separated");

  public static final ConfigKey<String> METRICS_PRINCIPALS =
      ConfigKey.derivedString(
          "auth.metrics-principals",
          "(none)",
          "Principals that may read /metrics with auth.mode=oauth2, comma-separated; principals"
              + " with admin on * may too, others get 403");

  public static final List<ConfigKey<?>> KEYS =
      List.of(
          MODE,
          CLIENTS,
          SIGNING_KEY,
          TOKEN_LIFETIME,
          JWKS_URL,
          JWT_ISSUER,
          JWT_AUDIENCE,
          PRINCIPAL_CLAIM,
          GRANTS,
          METRICS_PRINCIPALS);

  public AuthConfig {
    requireNonNull(mode, "mode is null");
    clients = Map.copyOf(clients);
    requireNonNull(tokenLifetime, "tokenLifetime is null");
    requireNonNull(principalClaim, "principalClaim is null");
    grants = List.copyOf(grants);
    metricsPrincipals = Set.copyOf(metricsPrincipals);
  }

  /** Off: the embedded default. */
  public static AuthConfig none() {
    return new AuthConfig(
        AuthMode.NONE,
        Map.of(),
        null,
        Duration.ofHours(1),
        null,
        null,
        null,
        "sub",
        List.of(),
        Set.of());
  }

  public static AuthConfig from(Configuration configuration) {
    String signingKey = configuration.get(SIGNING_KEY);
    if (signingKey != null && signingKey.length() < 32) {
      throw new ConfigException(
          "Invalid auth.token-signing-key: it must be at least 32 characters long");
    }
    String jwksUrl = configuration.get(JWKS_URL);
    String issuer = configuration.get(JWT_ISSUER);
    if (jwksUrl != null && issuer == null) {
      throw new ConfigException("auth.jwks-url is set but auth.jwt-issuer is not");
    }
    return new AuthConfig(
        configuration.get(MODE),
        parseClients(configuration.get(CLIENTS)),
        signingKey,
        configuration.get(TOKEN_LIFETIME),
        jwksUrl,
        issuer,
        configuration.get(JWT_AUDIENCE),
        configuration.get(PRINCIPAL_CLAIM),
        Grant.parseAll(configuration.get(GRANTS)),
        parsePrincipals(configuration.get(METRICS_PRINCIPALS)));
  }

  private static Set<String> parsePrincipals(String text) {
    Set<String> principals = new LinkedHashSet<>();
    if (text != null) {
      for (String name : text.split(",")) {
        if (!name.isBlank()) {
          principals.add(name.trim());
        }
      }
    }
    return principals;
  }

  private static Map<String, String> parseClients(String text) {
    Map<String, String> clients = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return clients;
    }
    for (String entry : text.split(",")) {
      int colon = entry.indexOf(':');
      if (colon <= 0 || colon == entry.length() - 1) {
        // The entry holds a secret, so the message names its position only.
        throw new ConfigException(
            "Invalid entry #" + (clients.size() + 1) + " in auth.clients: expected id:secret");
      }
      clients.put(entry.substring(0, colon).trim(), entry.substring(colon + 1).trim());
    }
    return clients;
  }

  @Override
  public String toString() {
    return "AuthConfig[mode="
        + mode
        + ", clients="
        + clients.keySet()
        + ", jwksUrl="
        + jwksUrl
        + ", grants="
        + grants.size()
        + "]";
  }
}
