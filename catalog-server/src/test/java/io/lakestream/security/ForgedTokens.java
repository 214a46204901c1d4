package io.lakestream.security;

import static java.util.Objects.requireNonNull;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Bearer tokens an attacker could present, built the way the server's {@code TokenService} builds
 * its own (HS256 JWT, issuer {@code lakestream}, the principal as subject, an expiry) but each
 * wrong in one way: signed with another key, expired though signed with the server's key, or not
 * signed at all. Each claims the given principal, typically one with every privilege, so that
 * accepting it would be an escalation and not merely a wrong name.
 */
final class ForgedTokens {
  private static final String ISSUER = "lakestream";

  private final String serverKey;

  /**
   * @param serverKey the server's {@code auth.token-signing-key}, for tokens that are validly
   *     signed and wrong otherwise
   */
  ForgedTokens(String serverKey) {
    this.serverKey = requireNonNull(serverKey, "serverKey is null");
  }

  /**
   * The bad tokens for a principal, by a short description: forged (signed with a key other than
   * the server's), expired (signed with the server's key, past its expiry), unsigned ({@code
   * alg=none}), and a validly signed token naming an internal component of the server.
   */
  Map<String, String> all(String principal) {
    Map<String, String> tokens = new LinkedHashMap<>();
    tokens.put("forged", forged(principal));
    tokens.put("expired", expired(principal));
    tokens.put("unsigned", unsigned(principal));
    tokens.put("forged-internal", forgedInternal());
    return tokens;
  }

  /** Signed with a random key the server does not know, valid for an hour. */
  String forged(String principal) {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return sign(claims(principal, Instant.now().plus(Duration.ofHours(1))).build(), key);
  }

  /** Signed with the server's own key, expired a minute ago. */
  String expired(String principal) {
    return sign(
        claims(principal, Instant.now().minus(Duration.ofMinutes(1))).build(),
        serverKey.getBytes(StandardCharsets.UTF_8));
  }

  /** Not signed ({@code alg=none}), valid for an hour. */
  String unsigned(String principal) {
    return new PlainJWT(claims(principal, Instant.now().plus(Duration.ofHours(1))).build())
        .serialize();
  }

  /**
   * An internal component's token ({@code lakestream-internal:tiering}, which acts with the
   * server's own rights), signed with a key the server does not know.
   */
  String forgedInternal() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return sign(
        claims("lakestream-internal:tiering", Instant.now().plus(Duration.ofHours(1)))
            .claim("lakestream-internal", true)
            .build(),
        key);
  }

  private static JWTClaimsSet.Builder claims(String principal, Instant expiry) {
    return new JWTClaimsSet.Builder()
        .issuer(ISSUER)
        .subject(principal)
        .issueTime(Date.from(expiry.minus(Duration.ofHours(1))))
        .expirationTime(Date.from(expiry))
        .jwtID(UUID.randomUUID().toString());
  }

  private static String sign(JWTClaimsSet claims, byte[] key) {
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    try {
      jwt.sign(new MACSigner(key));
    } catch (JOSEException e) {
      throw new IllegalStateException("Cannot sign a test token", e);
    }
    return jwt.serialize();
  }
}
