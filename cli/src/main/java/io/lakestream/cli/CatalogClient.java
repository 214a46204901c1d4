package io.lakestream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The few Iceberg REST catalog calls the stream RPC has no counterpart of: listing namespaces, and
 * the health endpoints. Every failure is a {@link CliFailure} naming the URL (never the token).
 */
final class CatalogClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();
  // The namespace separator of the REST spec's "parent" query parameter (0x1F).
  private static final String UNIT_SEPARATOR = "\u001f";

  private final String baseUri;
  private final String token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  CatalogClient(String baseUri, String token) {
    this.baseUri = baseUri;
    this.token = token;
  }

  /** Every namespace, nested ones included, in the order the catalog lists them (depth first). */
  List<List<String>> allNamespaces() {
    List<List<String>> all = new ArrayList<>();
    addNamespaces(null, all);
    return all;
  }

  private void addNamespaces(List<String> parent, List<List<String>> all) {
    String path = "/v1/namespaces";
    if (parent != null) {
      path +=
          "?parent="
              + URLEncoder.encode(String.join(UNIT_SEPARATOR, parent), StandardCharsets.UTF_8);
    }
    JsonNode body = getJson(path);
    for (JsonNode namespace : body.path("namespaces")) {
      List<String> levels = new ArrayList<>();
      namespace.forEach(level -> levels.add(level.asText()));
      if (parent != null && levels.size() <= parent.size()) {
        continue;
      }
      all.add(levels);
      addNamespaces(levels, all);
    }
  }

  /** GETs a path and returns the status code, or throws when the catalog cannot be reached. */
  int status(String path) {
    return send(path).statusCode();
  }

  JsonNode getJson(String path) {
    HttpResponse<String> response = send(path);
    if (response.statusCode() != 200) {
      String message = response.body();
      try {
        message = JSON.readTree(response.body()).path("error").path("message").asText(message);
      } catch (IOException e) {
        // Not an Iceberg ErrorResponse: report the body as it is.
      }
      throw new CliFailure(
          "Catalog " + baseUri + path + " answered " + response.statusCode() + ": " + message);
    }
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new CliFailure("Catalog " + baseUri + path + " answered malformed JSON", e);
    }
  }

  private HttpResponse<String> send(String path) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUri + path)).timeout(TIMEOUT).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new CliFailure("Cannot reach the catalog at " + baseUri + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliFailure("Interrupted while asking the catalog at " + baseUri, e);
    }
  }
}
