package io.lakestream.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.config.Configuration;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.junit.jupiter.api.Test;

/** Tokens of this server: who they name, and that only internal tokens are unrestricted. */
class TokenServiceTest {
  private static AuthConfig config() {
    return AuthConfig.from(
        Configuration.builder(io.lakestream.server.ServerConfig.allKeys())
            .layer(
                "test",
                Map.of(
                    "auth.mode",
                    "oauth2",
                    "auth.clients",
                    "etl:secret-1",
                    "auth.token-lifetime",
                    "1h"))
            .build());
  }

  @Test
  void internalTokensAreUnrestrictedAndClientTokensNeverAre() {
    TokenService tokens = new TokenService(config(), Clock.systemUTC());
    Principal internal = tokens.validate(tokens.issueInternal("tiering"));
    assertThat(internal.unrestricted()).isTrue();
    assertThat(internal.name()).isEqualTo("lakestream-internal:tiering");

    assertThat(tokens.validate(tokens.issueForClient("etl", "secret-1")).unrestricted()).isFalse();
    // Internal names are reserved: no exchange issues one.
    assertThatThrownBy(() -> tokens.issue("lakestream-internal:tiering"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(TokenService.isInternal(internal.name())).isTrue();
    assertThat(TokenService.isInternal("etl")).isFalse();
  }

  @Test
  void internalTokensExpireLikeOthersAndOtherServersRejectThem() {
    Instant start = Instant.parse("2026-11-30T00:00:00Z");
    TokenService issuer = new TokenService(config(), Clock.fixed(start, ZoneOffset.UTC));
    String token = issuer.issueInternal("tiering");
    TokenService later =
        new TokenService(config(), Clock.fixed(start.plus(Duration.ofHours(2)), ZoneOffset.UTC));
    assertThatThrownBy(() -> later.validate(token)).isInstanceOf(NotAuthorizedException.class);
    TokenService other = new TokenService(config(), Clock.fixed(start, ZoneOffset.UTC));
    assertThatThrownBy(() -> other.validate(token))
        .isInstanceOf(NotAuthorizedException.class)
        .hasMessageContaining("signature");
  }
}
