package io.lakestream.auth;

import static java.util.Objects.requireNonNull;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.net.MalformedURLException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.Date;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.exceptions.NotAuthorizedException;

/**
 * Issues and validates bearer tokens.
 *
 * <p>Issued tokens are HS256 JWTs signed with the configured key (or a random key per process start
 * when none is configured, so tokens then do not survive a restart or work on another node). Tokens
 * of an external issuer are accepted when {@code auth.jwks-url} is set: signature by a key of that
 * JWKS (RS256/ES256/PS256 families), the configured issuer and audience, and an expiry are all
 * required. Thread safe.
 */
public final class TokenService implements Authenticator {
  static final String ISSUER = "lakestream";
  private static final String INTERNAL_CLAIM = "lakestream-internal";
  private static final String INTERNAL_PREFIX = "lakestream-internal:";
  private static final String BEARER = "Bearer ";

  private final AuthConfig config;
  private final Clock clock;
  private final byte[] signingKey;
  private final DefaultJWTProcessor<SecurityContext> external;

  public TokenService(AuthConfig config, Clock clock) {
    this.config = requireNonNull(config, "config is null");
    this.clock = requireNonNull(clock, "clock is null");
    if (config.signingKey() != null) {
      this.signingKey = config.signingKey().getBytes(StandardCharsets.UTF_8);
    } else {
      this.signingKey = new byte[32];
      new SecureRandom().nextBytes(signingKey);
    }
    this.external = config.jwksUrl() == null ? null : externalProcessor(config);
  }

  private static DefaultJWTProcessor<SecurityContext> externalProcessor(AuthConfig config) {
    JWKSource<SecurityContext> keys;
    try {
      keys = JWKSourceBuilder.create(URI.create(config.jwksUrl()).toURL()).build();
    } catch (MalformedURLException | IllegalArgumentException e) {
      throw new io.lakestream.config.ConfigException(
          "Invalid auth.jwks-url '" + config.jwksUrl() + "': " + e.getMessage());
    }
    Set<JWSAlgorithm> algorithms = new HashSet<>();
    algorithms.addAll(JWSAlgorithm.Family.RSA);
    algorithms.addAll(JWSAlgorithm.Family.EC);
    DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(algorithms, keys));
    JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder().issuer(config.jwtIssuer());
    processor.setJWTClaimsSetVerifier(
        new DefaultJWTClaimsVerifier<>(
            config.jwtAudience(), exact.build(), Set.of("exp", config.principalClaim())));
    return processor;
  }

  /**
   * The client-credentials grant.
   *
   * @return a signed token for the client, whose principal is the client id
   * @throws NotAuthorizedException for an unknown client or a wrong secret (the same message for
   *     both)
   */
  public String issueForClient(String clientId, String clientSecret) {
    String expected = clientId == null ? null : config.clients().get(clientId);
    // Compare in constant time even for unknown ids, so timing does not reveal which ids exist.
    byte[] given = String.valueOf(clientSecret).getBytes(StandardCharsets.UTF_8);
    byte[] wanted = String.valueOf(expected).getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(given, wanted) || expected == null) {
      throw new NotAuthorizedException("Invalid client credentials");
    }
    return issue(clientId);
  }

  /**
   * A fresh token for a principal (token exchange of a valid token).
   *
   * @throws IllegalArgumentException for an internal principal ({@link #issueInternal} makes those)
   */
  public String issue(String principal) {
    if (isInternal(principal)) {
      throw new IllegalArgumentException("Internal principals get tokens from issueInternal");
    }
    Instant now = clock.instant();
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(ISSUER)
            .subject(principal)
            .issueTime(Date.from(now))
            .expirationTime(Date.from(now.plus(config.tokenLifetime())))
            .jwtID(UUID.randomUUID().toString())
            .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    try {
      jwt.sign(new MACSigner(signingKey));
    } catch (JOSEException e) {
      throw new IllegalStateException("Cannot sign token", e);
    }
    return jwt.serialize();
  }

  /**
   * A token for a part of this server that calls its own endpoints (the embedded tiering service
   * reading streams over the stream RPC). Its principal is unrestricted, like the in-process
   * catalog the same component already uses; it is signed with this server's key, lives {@code
   * auth.token-lifetime}, and never leaves the process.
   *
   * @param component names the component in the principal ({@code lakestream-internal:<component>})
   */
  public String issueInternal(String component) {
    requireNonNull(component, "component is null");
    Instant now = clock.instant();
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(ISSUER)
            .subject(INTERNAL_PREFIX + component)
            .claim(INTERNAL_CLAIM, true)
            .issueTime(Date.from(now))
            .expirationTime(Date.from(now.plus(config.tokenLifetime())))
            .jwtID(UUID.randomUUID().toString())
            .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    try {
      jwt.sign(new MACSigner(signingKey));
    } catch (JOSEException e) {
      throw new IllegalStateException("Cannot sign token", e);
    }
    return jwt.serialize();
  }

  /**
   * Whether a principal name is one of this server's internal components ({@link #issueInternal}).
   * Such names are reserved: no client or external token can carry one.
   */
  public static boolean isInternal(String principal) {
    return principal != null && principal.startsWith(INTERNAL_PREFIX);
  }

  public long tokenLifetimeSeconds() {
    return config.tokenLifetime().toSeconds();
  }

  @Override
  public Principal authenticate(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw new NotAuthorizedException("Authentication required: send an OAuth2 bearer token");
    }
    if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      throw new NotAuthorizedException("Unsupported authorization scheme: use Bearer");
    }
    return validate(authorization.substring(BEARER.length()).trim());
  }

  /** Tokens this server signed are checked in memory; external ones may need the issuer's keys. */
  @Override
  public Optional<Principal> authenticateWithoutWaiting(String authorization) {
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Optional.empty();
    }
    try {
      SignedJWT jwt = SignedJWT.parse(authorization.substring(BEARER.length()).trim());
      if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
        return Optional.empty();
      }
      return Optional.of(validateOwn(jwt));
    } catch (ParseException | JOSEException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Validates a bare token and returns its principal. */
  public Principal validate(String token) {
    SignedJWT jwt;
    try {
      jwt = SignedJWT.parse(token);
    } catch (ParseException e) {
      throw new NotAuthorizedException("Malformed bearer token");
    }
    try {
      if (JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
        return validateOwn(jwt);
      }
      if (external != null) {
        JWTClaimsSet claims = external.process(jwt, null);
        String principal = String.valueOf(claims.getClaim(config.principalClaim()));
        if (isInternal(principal)) {
          throw new NotAuthorizedException(
              "Invalid bearer token: principal names starting with %s are reserved",
              INTERNAL_PREFIX);
        }
        return Principal.named(principal);
      }
    } catch (NotAuthorizedException e) {
      throw e;
    } catch (Exception e) {
      throw new NotAuthorizedException("Invalid bearer token: %s", e.getMessage());
    }
    throw new NotAuthorizedException("Invalid bearer token: unknown issuer or algorithm");
  }

  private Principal validateOwn(SignedJWT jwt) throws JOSEException, ParseException {
    if (!jwt.verify(new MACVerifier(signingKey))) {
      throw new NotAuthorizedException("Invalid bearer token: bad signature");
    }
    JWTClaimsSet claims = jwt.getJWTClaimsSet();
    if (!ISSUER.equals(claims.getIssuer()) || claims.getSubject() == null) {
      throw new NotAuthorizedException("Invalid bearer token: not issued by this server");
    }
    Date expiry = claims.getExpirationTime();
    if (expiry == null || !expiry.toInstant().isAfter(clock.instant())) {
      throw new NotAuthorizedException("Bearer token expired");
    }
    boolean internal = Boolean.TRUE.equals(claims.getBooleanClaim(INTERNAL_CLAIM));
    if (internal != isInternal(claims.getSubject())) {
      throw new NotAuthorizedException("Invalid bearer token: reserved principal name");
    }
    return internal
        ? new Principal(claims.getSubject(), true)
        : Principal.named(claims.getSubject());
  }

  /** The settings shown at start-up; never the key or secrets. */
  public Map<String, String> describe() {
    return Map.of(
        "clients", String.valueOf(config.clients().size()),
        "signingKey", config.signingKey() == null ? "random per start" : "configured",
        "jwks", String.valueOf(config.jwksUrl()));
  }
}
