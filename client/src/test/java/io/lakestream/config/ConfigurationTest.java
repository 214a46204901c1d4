package io.lakestream.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigurationTest {
  enum Mode {
    NONE,
    OAUTH_TWO
  }

  private static final ConfigKey<Integer> PORT = ConfigKey.port("http.port", 8181, "port");
  private static final ConfigKey<Long> SIZE = ConfigKey.bytes("max-size", 1024, "size");
  private static final ConfigKey<Duration> TIMEOUT =
      ConfigKey.duration("shutdown.timeout", Duration.ofSeconds(30), "timeout");
  private static final ConfigKey<Mode> MODE =
      ConfigKey.choice("auth.mode", Mode.class, Mode.NONE, "mode");
  private static final ConfigKey<String> SECRET = ConfigKey.secret("db.password", "password");
  private static final List<ConfigKey<?>> KEYS = List.of(PORT, SIZE, TIMEOUT, MODE, SECRET);

  @Test
  void defaultsApplyWhenNothingIsSet() {
    Configuration configuration = Configuration.builder(KEYS).build();
    assertThat(configuration.get(PORT)).isEqualTo(8181);
    assertThat(configuration.get(SIZE)).isEqualTo(1024L);
    assertThat(configuration.get(TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
    assertThat(configuration.get(MODE)).isEqualTo(Mode.NONE);
    assertThat(configuration.get(SECRET)).isNull();
    assertThat(configuration.isSet(PORT)).isFalse();
  }

  @Test
  void laterLayersOverrideEarlierOnes() {
    Configuration.Builder builder = Configuration.builder(KEYS);
    builder.layer("file a.yaml", Map.of("http.port", "1000", "max-size", "16mb"));
    builder.environment(Map.of("LAKESTREAM_HTTP_PORT", "2000", "LAKESTREAM_UNRELATED", "x"));
    builder.flag(builder.keyForFlag("--http-port").orElseThrow(), "3000");
    Configuration configuration = builder.build();
    assertThat(configuration.get(PORT)).isEqualTo(3000);
    assertThat(configuration.get(SIZE)).isEqualTo(16L << 20);
    assertThat(configuration.describe().get("http.port")).isEqualTo("3000 [flag --http-port]");
    assertThat(configuration.describe().get("max-size")).isEqualTo("16777216 [file a.yaml]");
  }

  @Test
  void spellingsDeriveFromTheName() {
    assertThat(TIMEOUT.flag()).isEqualTo("--shutdown-timeout");
    assertThat(TIMEOUT.environmentVariable()).isEqualTo("LAKESTREAM_SHUTDOWN_TIMEOUT");
    assertThat(MODE.defaultText()).isEqualTo("none");
  }

  @Test
  void parsesUnits() {
    Configuration configuration =
        Configuration.builder(KEYS)
            .layer(
                "test",
                Map.of("max-size", "2gb", "shutdown.timeout", "500ms", "auth.mode", "oauth-two"))
            .build();
    assertThat(configuration.get(SIZE)).isEqualTo(2L << 30);
    assertThat(configuration.get(TIMEOUT)).isEqualTo(Duration.ofMillis(500));
    assertThat(configuration.get(MODE)).isEqualTo(Mode.OAUTH_TWO);
  }

  @Test
  void badValuesNameTheKeyTheValueAndTheOrigin() {
    assertThatThrownBy(
            () -> Configuration.builder(KEYS).layer("file a.yaml", Map.of("http.port", "eighty")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Invalid value 'eighty' for http.port (from file a.yaml): expected an integer between 0 and 65535");
    assertThatThrownBy(() -> Configuration.builder(KEYS).layer("x", Map.of("http.port", "70000")))
        .hasMessageContaining("between 0 and 65535");
    assertThatThrownBy(
            () -> Configuration.builder(KEYS).layer("x", Map.of("max-size", "12 parsecs")))
        .hasMessageContaining("unknown size unit 'parsecs'");
    assertThatThrownBy(
            () -> Configuration.builder(KEYS).layer("x", Map.of("auth.mode", "kerberos")))
        .hasMessageContaining("expected one of none, oauth-two");
  }

  @Test
  void unknownKeysAreRefused() {
    assertThatThrownBy(
            () -> Configuration.builder(KEYS).layer("file a.yaml", Map.of("http.prot", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("Unknown configuration key 'http.prot' in file a.yaml");
  }

  @Test
  void secretsAreNeverShown() {
    Configuration configuration =
        Configuration.builder(KEYS).layer("x", Map.of("db.password", "hunter2")).build();
    assertThat(configuration.get(SECRET)).isEqualTo("hunter2");
    assertThat(configuration.describe().toString()).doesNotContain("hunter2");
    assertThatThrownBy(() -> ConfigKey.integer("n", 1, 0, 5, "n").parse("9", "x"))
        .hasMessageContaining("'9'");
    ConfigKey<Integer> secretNumber = ConfigKey.integer("n", 1, 0, 5, "n");
    assertThat(secretNumber.secret()).isFalse();
  }

  @Test
  void duplicateKeysAndClashingFlagsAreProgrammingErrors() {
    ConfigKey<Integer> dotted = ConfigKey.port("a.b", 1, "x");
    ConfigKey<Integer> dashed = ConfigKey.port("a-b", 1, "x");
    assertThatThrownBy(() -> Configuration.builder(List.of(dotted, dashed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("share the flag --a-b");
  }
}
