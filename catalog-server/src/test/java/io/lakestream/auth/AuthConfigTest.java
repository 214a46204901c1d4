package io.lakestream.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.config.ConfigException;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.junit.jupiter.api.Test;

class AuthConfigTest {
  @Test
  void pinsEveryKeyAndDefault() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (ConfigKey<?> key : AuthConfig.KEYS) {
      defaults.put(key.name(), key.defaultText());
    }
    assertThat(defaults)
        .containsExactly(
            Map.entry("auth.mode", "none"),
            Map.entry("auth.clients", "(none)"),
            Map.entry("auth.token-signing-key", "(none)"),
            Map.entry("auth.token-lifetime", "1h"),
            Map.entry("auth.jwks-url", "(none)"),
            Map.entry("auth.jwt-issuer", "(none)"),
            Map.entry("auth.jwt-audience", "(none)"),
            Map.entry("auth.principal-claim", "sub"),
            Map.entry("auth.grants", "(none)"),
            Map.entry("auth.metrics-principals", "(none)"));
    assertThat(AuthConfig.KEYS)
        .filteredOn(ConfigKey::secret)
        .extracting(ConfigKey::name)
        .containsExactlyInAnyOrder("auth.clients", "auth.token-signing-key");
  }

  @Test
  void metricsNeedAdminOnEveryWarehouseOrANamedPrincipal() {
    AuthConfig config =
        AuthConfig.from(
            Configuration.builder(AuthConfig.KEYS)
                .layer(
                    "test",
                    Map.of(
                        "auth.grants", "ops:admin:*, owner:admin:default, bi:read:*",
                        "auth.metrics-principals", "prometheus, grafana"))
                .build());
    assertThat(config.metricsPrincipals()).containsExactlyInAnyOrder("prometheus", "grafana");
    Authorizer authorizer = new Authorizer(config.grants(), config.metricsPrincipals());
    authorizer.checkMetrics(Principal.named("ops"));
    authorizer.checkMetrics(Principal.named("prometheus"));
    authorizer.checkMetrics(Principal.ANONYMOUS);
    for (String denied : List.of("owner", "bi", "nobody")) {
      assertThatThrownBy(() -> authorizer.checkMetrics(Principal.named(denied)))
          .isInstanceOf(ForbiddenException.class)
          .hasMessageContaining(denied);
    }
  }

  @Test
  void parsesClientsAndGrants() {
    AuthConfig config =
        AuthConfig.from(
            Configuration.builder(AuthConfig.KEYS)
                .layer(
                    "test",
                    Map.of(
                        "auth.mode", "oauth2",
                        "auth.clients", "etl:s3cret, bi:other",
                        "auth.grants", "etl:write:default.sales, bi:read:*"))
                .build());
    assertThat(config.mode()).isEqualTo(AuthMode.OAUTH2);
    assertThat(config.clients()).containsEntry("etl", "s3cret").containsEntry("bi", "other");
    assertThat(config.grants())
        .containsExactly(
            new Grant("etl", Privilege.WRITE, "default", Namespace.of("sales")),
            new Grant("bi", Privilege.READ, null, Namespace.empty()));
    assertThat(config.toString()).doesNotContain("s3cret").doesNotContain("other");
  }

  @Test
  void grantsCoverTheirNamespaceAndBelow() {
    Grant grant = new Grant("etl", Privilege.WRITE, "default", Namespace.of("sales"));
    assertThat(grant.allows(Privilege.READ, "default", Namespace.of("sales", "eu"))).isTrue();
    assertThat(grant.allows(Privilege.WRITE, "default", Namespace.of("sales"))).isTrue();
    assertThat(grant.allows(Privilege.ADMIN, "default", Namespace.of("sales"))).isFalse();
    assertThat(grant.allows(Privilege.READ, "default", Namespace.of("salesforce"))).isFalse();
    assertThat(grant.allows(Privilege.READ, "default", Namespace.empty())).isFalse();
    assertThat(grant.allows(Privilege.READ, "other", Namespace.of("sales"))).isFalse();
  }

  @Test
  void badValuesAreOneLineErrorsWithoutSecrets() {
    assertThatThrownBy(
            () ->
                AuthConfig.from(
                    Configuration.builder(AuthConfig.KEYS)
                        .layer("test", Map.of("auth.clients", "justasecretvalue"))
                        .build()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("Invalid entry #1 in auth.clients: expected id:secret");
    assertThatThrownBy(
            () ->
                AuthConfig.from(
                    Configuration.builder(AuthConfig.KEYS)
                        .layer("test", Map.of("auth.grants", "bi:peek:*"))
                        .build()))
        .hasMessageContaining("privilege must be read, write or admin");
    assertThatThrownBy(
            () ->
                AuthConfig.from(
                    Configuration.builder(AuthConfig.KEYS)
                        .layer("test", Map.of("auth.token-signing-key", "short"))
                        .build()))
        .hasMessageContaining("at least 32 characters")
        .hasMessageNotContaining("short'");
  }
}
