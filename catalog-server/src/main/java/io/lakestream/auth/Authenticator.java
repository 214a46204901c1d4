package io.lakestream.auth;

import java.util.Optional;
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
   * The principal {@link #authenticate} would return, if it can be told without waiting (no call to
   * an external issuer): for a network event loop, which must not block. Empty when the credentials
   * are not valid <em>or</em> need such a call; {@link #authenticate} then decides, with its
   * message.
   */
  default Optional<Principal> authenticateWithoutWaiting(String authorization) {
    return Optional.empty();
  }

  /**
   * The authenticator of {@code auth.mode=none}: everyone is the unrestricted anonymous principal.
   */
  static Authenticator none() {
    return new Authenticator() {
      @Override
      public Principal authenticate(String authorization) {
        return Principal.ANONYMOUS;
      }

      @Override
      public Optional<Principal> authenticateWithoutWaiting(String authorization) {
        return Optional.of(Principal.ANONYMOUS);
      }
    };
  }
}
