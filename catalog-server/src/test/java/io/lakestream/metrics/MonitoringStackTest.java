package io.lakestream.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The monitoring part of {@code docker-compose.yml} fits together without Docker (none runs here):
 * Prometheus scrapes a port and path the Lakestream service serves and loads the alerts file it
 * mounts, and Grafana's provisioned data source and dashboard folder are the ones mounted. The
 * metric names the dashboard and alerts use are checked against a real scrape in {@link
 * MetricsEndpointTest}.
 */
class MonitoringStackTest {
  private static Path repository() {
    Path directory = Path.of("").toAbsolutePath();
    while (directory != null && !Files.isRegularFile(directory.resolve("docker-compose.yml"))) {
      directory = directory.getParent();
    }
    assertThat(directory).as("the repository's root").isNotNull();
    return directory;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> yaml(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return (Map<String, Object>) new Yaml().load(in);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> service(Map<String, Object> compose, String name) {
    Map<String, Object> services = (Map<String, Object>) compose.get("services");
    assertThat(services).as("services").containsKey(name);
    return (Map<String, Object>) services.get(name);
  }

  /** A service's volume mounts of repository files: container path to repository path. */
  @SuppressWarnings("unchecked")
  private static Map<String, Path> mounts(Path repository, Map<String, Object> service) {
    Map<String, Path> mounts = new HashMap<>();
    for (String volume : (List<String>) service.get("volumes")) {
      String[] parts = volume.split(":");
      if (parts[0].startsWith("./")) {
        Path source = repository.resolve(parts[0].substring(2)).normalize();
        assertThat(source).as("mounted %s", parts[0]).exists();
        mounts.put(parts[1], source);
      }
    }
    return mounts;
  }

  @SuppressWarnings("unchecked")
  private static List<String> publishedPorts(Map<String, Object> service) {
    return ((List<String>) service.get("ports"))
        .stream().map(port -> port.substring(port.lastIndexOf(':') + 1)).toList();
  }

  @Test
  @SuppressWarnings("unchecked")
  void prometheusScrapesTheServerAndLoadsTheMountedAlerts() throws IOException {
    Path repository = repository();
    Map<String, Object> compose = yaml(repository.resolve("docker-compose.yml"));
    Map<String, Object> prometheus = service(compose, "prometheus");
    Map<String, Path> mounts = mounts(repository, prometheus);
    Path config = mounts.get("/etc/prometheus/prometheus.yml");
    assertThat(config).as("prometheus.yml mount").isNotNull();
    Map<String, Object> settings = yaml(config);

    List<String> rules = (List<String>) settings.get("rule_files");
    assertThat(rules).isNotEmpty();
    for (String rule : rules) {
      assertThat(mounts).as("rule file %s", rule).containsKey(rule);
    }
    assertThat(mounts.get("/etc/prometheus/alerts.yml"))
        .isEqualTo(repository.resolve("docs/prometheus/alerts.yml"));

    Map<String, Object> job = ((List<Map<String, Object>>) settings.get("scrape_configs")).get(0);
    assertThat(job.get("metrics_path")).isEqualTo("/metrics");
    String target =
        ((List<String>)
                ((List<Map<String, Object>>) job.get("static_configs")).get(0).get("targets"))
            .get(0);
    String host = target.substring(0, target.indexOf(':'));
    String port = target.substring(target.indexOf(':') + 1);
    assertThat(host).isEqualTo("lakestream");
    // The server's HTTP port (rest.port, 8181 by default) is the one the service publishes.
    assertThat(publishedPorts(service(compose, host))).contains(port);
  }

  @Test
  @SuppressWarnings("unchecked")
  void grafanaHasPrometheusAndTheMountedDashboard() throws IOException {
    Path repository = repository();
    Map<String, Object> compose = yaml(repository.resolve("docker-compose.yml"));
    Map<String, Object> grafana = service(compose, "grafana");
    Map<String, Path> mounts = mounts(repository, grafana);
    Path provisioning = mounts.get("/etc/grafana/provisioning");
    assertThat(provisioning).as("provisioning mount").isNotNull();

    Map<String, Object> datasource =
        ((List<Map<String, Object>>)
                yaml(provisioning.resolve("datasources/prometheus.yml")).get("datasources"))
            .get(0);
    assertThat(datasource.get("type")).isEqualTo("prometheus");
    URI url = URI.create((String) datasource.get("url"));
    assertThat(url.getHost()).isEqualTo("prometheus");
    assertThat(publishedPorts(service(compose, "prometheus")))
        .contains(Integer.toString(url.getPort()));

    Map<String, Object> provider =
        ((List<Map<String, Object>>)
                yaml(provisioning.resolve("dashboards/lakestream.yml")).get("providers"))
            .get(0);
    String dashboards = (String) ((Map<String, Object>) provider.get("options")).get("path");
    Path mounted = mounts.get(dashboards);
    assertThat(mounted).as("dashboards mount at %s", dashboards).isNotNull();
    JsonNode dashboard =
        new ObjectMapper().readTree(Files.readString(mounted.resolve("lakestream-dashboard.json")));
    // The dashboard picks its data source by type, which the provisioned one has.
    JsonNode variable = dashboard.at("/templating/list/0");
    assertThat(variable.get("type").asText()).isEqualTo("datasource");
    assertThat(variable.get("query").asText()).isEqualTo(datasource.get("type"));
  }
}
