package io.lakestream.auth;

/** How the server authenticates requests. */
public enum AuthMode {
  /** Every request acts as an unrestricted anonymous principal; for loopback development. */
  NONE,
  /** Bearer tokens: issued by this server's token endpoint, or by an external issuer (JWKS). */
  OAUTH2
}
