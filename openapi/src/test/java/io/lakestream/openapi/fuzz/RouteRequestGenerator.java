package io.lakestream.openapi.fuzz;

import static io.lakestream.openapi.fuzz.JsonValues.JSON;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.rest.Route;
import java.net.URLEncoder;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates HTTP requests to every route of the server: the route's method (now and then another
 * one), odd path parameters and query parameters, and bodies that are well-formed requests with
 * wrong fields, other shapes of JSON, or not JSON at all.
 *
 * <p>Requests name only the scratch namespace's entries and missing ones, never the fixtures the
 * commit fuzzers work on, so that an accepted drop or rename cannot take those away.
 */
final class RouteRequestGenerator {
  /** A generated request: method, path with query, body (empty for none). */
  record Request(String method, String path, byte[] body) {
    @Override
    public String toString() {
      String text = new String(body, UTF_8);
      return method
          + " "
          + path
          + (body.length == 0
              ? ""
              : " " + (text.length() > 600 ? text.substring(0, 600) + "..." : text));
    }
  }

  private static final List<String> SAFE_NAMESPACES = List.of("scratch", "missing");
  private static final List<String> SAFE_NAMES = List.of("t1", "t2", "v1", "missing");

  private final JsonValues values;
  private final String locationRoot;

  RouteRequestGenerator(JsonValues values, String locationRoot) {
    this.values = requireNonNull(values, "values is null");
    this.locationRoot = requireNonNull(locationRoot, "locationRoot is null");
  }

  Request next() {
    Route route = values.pick(Route.values());
    String method = route.method();
    if (values.chance(0.05)) {
      method = values.pick("GET", "POST", "PUT", "DELETE", "HEAD", "PATCH");
    }
    String path = path(route) + query();
    byte[] body = method.equals("POST") || values.chance(0.05) ? body(route) : new byte[0];
    return new Request(method, path, body);
  }

  private String path(Route route) {
    String template = route.endpoint().path();
    String prefix = values.chance(0.85) ? "default" : values.pick("nope", "%00", "a%2Fb", "");
    String path =
        values.chance(0.3)
            ? template.replace("/{prefix}", "")
            : template.replace("{prefix}", encode(prefix));
    return path.replace("{namespace}", namespaceSegment())
        .replace("{table}", nameSegment())
        .replace("{view}", nameSegment());
  }

  private String namespaceSegment() {
    if (values.chance(0.8)) {
      return values.pick(SAFE_NAMESPACES);
    }
    return values.pick(
        "scratch%1Fdeep",
        "%1F",
        "scratch%1F%1F",
        encode("x".repeat(300)),
        "%2E%2E",
        "%FF%FE",
        "%25",
        encode("a/b"),
        String.join("%1F", java.util.Collections.nCopies(40, "n")));
  }

  private String nameSegment() {
    if (values.chance(0.8)) {
      return values.pick(SAFE_NAMES);
    }
    return values.pick(
        "%2E", "%2E%2E", encode("x".repeat(300)), "%00", "%25", encode("a\\b"), "%E2%82");
  }

  private String query() {
    if (!values.chance(0.3)) {
      return "";
    }
    List<String> parameters = new ArrayList<>();
    int count = 1 + values.random().nextInt(2);
    for (int i = 0; i < count; i++) {
      parameters.add(
          values.pick(
              "pageSize=-1",
              "pageSize=abc",
              "pageSize=99999999999",
              "pageSize=0",
              "pageSize=2",
              "pageToken=garbage",
              "pageToken=%00",
              "snapshots=xyz",
              "snapshots=refs",
              "purgeRequested=maybe",
              "purgeRequested=true",
              "parent=%1F",
              "parent=missing",
              "warehouse=nope",
              "planId=1",
              "a=b"));
    }
    return "?" + String.join("&", parameters);
  }

  private byte[] body(Route route) {
    if (values.chance(0.25)) {
      return malformed();
    }
    JsonNode body =
        switch (route) {
          case CREATE_NAMESPACE ->
              JSON.objectNode()
                  .<ObjectNode>set("namespace", namespaceArray())
                  .set("properties", values.stringMap("location", "comment"));
          case UPDATE_NAMESPACE ->
              JSON.objectNode()
                  .<ObjectNode>set("removals", values.stringArray("comment", "location"))
                  .set("updates", values.stringMap("comment", "location"));
          case CREATE_TABLE -> createTable();
          case REGISTER_TABLE, REGISTER_VIEW ->
              JSON.objectNode()
                  .<ObjectNode>set("name", values.name(SAFE_NAMES.toArray(String[]::new)))
                  .<ObjectNode>set(
                      "metadata-location",
                      values.pick(
                          JSON.textNode(locationRoot + "/missing.metadata.json"),
                          JSON.textNode(locationRoot + "/not-json.metadata.json"),
                          JSON.textNode(locationRoot + "/empty.metadata.json"),
                          JSON.textNode(""),
                          values.wrongType()))
                  .put("overwrite", values.random().nextBoolean());
          case UPDATE_TABLE, COMMIT_TRANSACTION -> commit(route == Route.COMMIT_TRANSACTION);
          case REPLACE_VIEW -> commit(false);
          case RENAME_TABLE, RENAME_VIEW ->
              JSON.objectNode()
                  .<ObjectNode>set("source", identifier())
                  .set("destination", identifier());
          case CREATE_VIEW -> createView();
          case REPORT_METRICS ->
              JSON.objectNode()
                  .put("report-type", values.pick("scan-report", "commit-report", "other"))
                  .<ObjectNode>set("table-name", values.name("scratch.t1"))
                  .<ObjectNode>set("snapshot-id", values.longValue(1))
                  .<ObjectNode>set("filter", values.wrongType())
                  .set("metrics", values.stringMap());
          default -> values.wrongType();
        };
    if (body.isObject()) {
      values.mutate((ObjectNode) body);
    }
    return body.toString().getBytes(UTF_8);
  }

  private byte[] malformed() {
    String text =
        values.pick(
            "",
            "{",
            "}",
            "[]",
            "null",
            "\"text\"",
            "123",
            "1e999999",
            "{\"namespace\":",
            "{\"namespace\":[\"a\"],}",
            "{'namespace': ['a']}",
            "\uFEFF{}",
            "{\"a\":1}{\"b\":2}",
            "[".repeat(5000) + "]".repeat(5000),
            "{\"a\":".repeat(3000) + "1" + "}".repeat(3000),
            "{\"name\":\"" + "\\u0000".repeat(10) + "\"}",
            "{\"name\":\"\\uD800\"}");
    if (values.chance(0.1)) {
      byte[] bytes = new byte[1 + values.random().nextInt(64)];
      values.random().nextBytes(bytes);
      return bytes;
    }
    return text.getBytes(UTF_8);
  }

  private JsonNode namespaceArray() {
    if (values.chance(0.7)) {
      return JSON.arrayNode().add(values.pick("scratch", "scratch_" + values.random().nextInt(9)));
    }
    return values.stringArray();
  }

  private JsonNode identifier() {
    if (values.chance(0.15)) {
      return values.wrongType();
    }
    return values.mutate(
        JSON.objectNode()
            .<ObjectNode>set("namespace", JSON.arrayNode().add(values.pick(SAFE_NAMESPACES)))
            .set("name", values.name(SAFE_NAMES.toArray(String[]::new))));
  }

  private JsonNode schema() {
    if (values.chance(0.1)) {
      return values.wrongType();
    }
    ArrayNode fields = JSON.arrayNode();
    fields.add(
        values.mutate(
            JSON.objectNode()
                .<ObjectNode>set("id", values.id(1))
                .<ObjectNode>set("name", values.name("id"))
                .put("required", values.random().nextBoolean())
                .put("type", values.pick("long", "string", "nonsense", "decimal(40,2)"))));
    return values.mutate(
        JSON.objectNode()
            .put("type", "struct")
            .<ObjectNode>set("schema-id", values.id(0))
            .set("fields", fields));
  }

  private JsonNode createTable() {
    ObjectNode body = JSON.objectNode();
    body.set("name", values.name(SAFE_NAMES.toArray(String[]::new)));
    body.set("schema", schema());
    if (values.chance(0.3)) {
      body.set(
          "location",
          values.pick(
              JSON.textNode(locationRoot + "/tables/t" + values.random().nextInt(5)),
              JSON.textNode(""),
              values.wrongType()));
    }
    if (values.chance(0.3)) {
      body.set(
          "partition-spec",
          JSON.objectNode()
              .<ObjectNode>set(
                  "fields",
                  JSON.arrayNode()
                      .add(
                          values.mutate(
                              JSON.objectNode()
                                  .<ObjectNode>set("source-id", values.id(1))
                                  .<ObjectNode>set("field-id", values.id(1000))
                                  .<ObjectNode>set("name", values.name("p"))
                                  .put("transform", values.pick("identity", "bucket[0]", "x"))))));
    }
    if (values.chance(0.3)) {
      body.set(
          "write-order",
          JSON.objectNode()
              .<ObjectNode>set("order-id", values.id(1, 0))
              .set("fields", JSON.arrayNode()));
    }
    if (values.chance(0.3)) {
      body.put("stage-create", values.random().nextBoolean());
    }
    body.set(
        "properties",
        values.stringMap(
            "lakestream.kind",
            "lakestream.buckets",
            "lakestream.bucket-key",
            "lakestream.primary-key",
            "format-version"));
    return body;
  }

  private JsonNode createView() {
    ObjectNode version = JSON.objectNode();
    version.set("version-id", values.id(1));
    version.set("schema-id", values.id(0));
    version.set("timestamp-ms", values.longValue(1_700_000_000_000L));
    version.set("summary", values.stringMap());
    version.set(
        "representations",
        JSON.arrayNode()
            .add(
                values.mutate(
                    JSON.objectNode()
                        .put("type", "sql")
                        .<ObjectNode>set("sql", values.name("select 1"))
                        .<ObjectNode>set("dialect", values.name("spark")))));
    version.set("default-namespace", JSON.arrayNode().add("scratch"));
    ObjectNode body = JSON.objectNode();
    body.set("name", values.name(SAFE_NAMES.toArray(String[]::new)));
    body.set("schema", schema());
    body.set("view-version", values.mutate(version));
    body.set("properties", values.stringMap());
    if (values.chance(0.3)) {
      body.set("location", values.pick(JSON.textNode(""), values.wrongType()));
    }
    return body;
  }

  private JsonNode commit(boolean transaction) {
    ObjectNode change = JSON.objectNode();
    if (transaction || values.chance(0.2)) {
      change.set("identifier", identifier());
    }
    ArrayNode requirements = change.putArray("requirements");
    if (values.chance(0.5)) {
      requirements.add(
          values.mutate(
              JSON.objectNode()
                  .put("type", values.pick(CommitGenerator.REQUIREMENTS))
                  .<ObjectNode>set("uuid", values.uuid("00000000-0000-0000-0000-000000000000"))
                  .<ObjectNode>set("ref", values.name("main"))
                  .set("snapshot-id", values.longValue(1))));
    }
    ArrayNode updates = change.putArray("updates");
    if (values.chance(0.7)) {
      updates.add(
          values.mutate(
              JSON.objectNode()
                  .put("action", values.pick(CommitGenerator.TABLE_ACTIONS))
                  .<ObjectNode>set("updates", values.stringMap())
                  .<ObjectNode>set("removals", values.stringArray())
                  .<ObjectNode>set("spec-id", values.id(0))
                  .<ObjectNode>set("sort-order-id", values.id(0))
                  .<ObjectNode>set("schema-id", values.id(0))
                  .<ObjectNode>set("uuid", values.uuid("00000000-0000-0000-0000-000000000000"))
                  .set("format-version", values.id(2))));
    }
    if (!transaction) {
      return change;
    }
    ArrayNode changes = JSON.arrayNode().add(change);
    if (values.chance(0.3)) {
      changes.add(change.deepCopy());
    }
    return JSON.objectNode()
        .set("table-changes", values.chance(0.9) ? changes : values.wrongType());
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, UTF_8).replace("+", "%20");
  }
}
