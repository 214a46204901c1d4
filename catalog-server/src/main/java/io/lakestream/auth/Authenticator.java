package io.lakestream.auth;

import org.apache.iceberg.exceptions.NotAuthorizedException;

/**
 * Turns a request's credentials into a {@link Principal}. The same authenticator serves every
 * network endpoint of the server (REST today; the stream RPC and Flight SQL reuse it), so one token
 * works everywhere. Thread safe.
 */
public interface Authenticator {
  /**
   * @param authorization the {@code Authorization} header value, or null when absent
   * @throws NotAuthorizedException when credentials are missing, malformed, forged or expired; the
   *     message says which, never echoing the credential
   */
  Principal authenticate(String authorization);

  /**
   * The authenticator of {@code auth.mode=none}: everyone is the unrestricted anonymous principal.
   */
  static Authenticator none() {
    return authorization -> Principal.ANONYMOUS;
  }
}
