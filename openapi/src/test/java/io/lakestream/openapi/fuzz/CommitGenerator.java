package io.lakestream.openapi.fuzz;

import static io.lakestream.openapi.fuzz.JsonValues.JSON;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates table and view commit bodies ({@code updates} and {@code requirements}) from the
 * current metadata of the target: every Iceberg {@code MetadataUpdate} action and every {@code
 * UpdateRequirement} type, with fields that are valid, edge or invalid (see {@link JsonValues}).
 */
final class CommitGenerator {
  static final List<String> TABLE_ACTIONS =
      List.of(
          "assign-uuid",
          "upgrade-format-version",
          "add-schema",
          "set-current-schema",
          "add-spec",
          "set-default-spec",
          "add-sort-order",
          "set-default-sort-order",
          "add-snapshot",
          "set-snapshot-ref",
          "remove-snapshots",
          "remove-snapshot-ref",
          "set-location",
          "set-properties",
          "remove-properties",
          "set-statistics",
          "remove-statistics",
          "set-partition-statistics",
          "remove-partition-statistics",
          "remove-partition-specs",
          "remove-schemas",
          "add-encryption-key",
          "remove-encryption-key",
          "no-such-action");

  static final List<String> VIEW_ACTIONS =
      List.of(
          "assign-uuid",
          "upgrade-format-version",
          "add-schema",
          "set-location",
          "set-properties",
          "remove-properties",
          "add-view-version",
          "set-current-view-version",
          "set-current-schema",
          "no-such-action");

  static final List<String> REQUIREMENTS =
      List.of(
          "assert-create",
          "assert-table-uuid",
          "assert-view-uuid",
          "assert-ref-snapshot-id",
          "assert-last-assigned-field-id",
          "assert-current-schema-id",
          "assert-last-assigned-partition-id",
          "assert-default-spec-id",
          "assert-default-sort-order-id",
          "assert-nothing");

  private final JsonValues values;
  private final String locationRoot;

  /**
   * @param locationRoot a directory the test owns: the only place a generated valid location may
   *     point at, so that an accepted {@code set-location} never makes the server write elsewhere
   */
  CommitGenerator(JsonValues values, String locationRoot) {
    this.values = requireNonNull(values, "values is null");
    this.locationRoot = requireNonNull(locationRoot, "locationRoot is null");
  }

  /** A table commit body for a table with the given current metadata. */
  ObjectNode tableCommit(JsonNode metadata) {
    ObjectNode body = JSON.objectNode();
    body.set("requirements", requirements(metadata));
    ArrayNode updates = body.putArray("updates");
    int count = 1 + values.random().nextInt(3);
    for (int i = 0; i < count; i++) {
      updates.add(values.mutate(tableUpdate(values.pick(TABLE_ACTIONS), metadata)));
    }
    return maybeBreak(body);
  }

  /** A view commit body for a view with the given current metadata. */
  ObjectNode viewCommit(JsonNode metadata) {
    ObjectNode body = JSON.objectNode();
    ArrayNode requirements = body.putArray("requirements");
    if (values.chance(0.5)) {
      requirements.add(
          JSON.objectNode()
              .put("type", "assert-view-uuid")
              .set("uuid", values.uuid(metadata.path("view-uuid").asText())));
    }
    ArrayNode updates = body.putArray("updates");
    int count = 1 + values.random().nextInt(2);
    for (int i = 0; i < count; i++) {
      updates.add(values.mutate(viewUpdate(values.pick(VIEW_ACTIONS), metadata)));
    }
    return maybeBreak(body);
  }

  /** Now and then breaks the shape of the whole body: a missing or mistyped list. */
  private ObjectNode maybeBreak(ObjectNode body) {
    if (values.chance(0.05)) {
      body.set(values.pick("updates", "requirements"), values.wrongType());
    } else if (values.chance(0.03)) {
      body.remove("updates");
    }
    return body;
  }

  ArrayNode requirements(JsonNode metadata) {
    ArrayNode requirements = JSON.arrayNode();
    if (values.chance(0.5)) {
      return requirements;
    }
    int count = 1 + values.random().nextInt(2);
    for (int i = 0; i < count; i++) {
      ObjectNode requirement = JSON.objectNode();
      String type = values.pick(REQUIREMENTS);
      requirement.put("type", type);
      switch (type) {
        case "assert-table-uuid", "assert-view-uuid" ->
            requirement.set("uuid", values.uuid(metadata.path("table-uuid").asText()));
        case "assert-ref-snapshot-id" -> {
          requirement.set("ref", values.name("main", "branch"));
          requirement.set(
              "snapshot-id",
              values.chance(0.3) ? JSON.nullNode() : values.longValue(snapshotIds(metadata)));
        }
        case "assert-last-assigned-field-id" ->
            requirement.set(
                "last-assigned-field-id", values.id(metadata.path("last-column-id").asLong()));
        case "assert-current-schema-id" ->
            requirement.set(
                "current-schema-id", values.id(metadata.path("current-schema-id").asLong()));
        case "assert-last-assigned-partition-id" ->
            requirement.set(
                "last-assigned-partition-id",
                values.id(metadata.path("last-partition-id").asLong()));
        case "assert-default-spec-id" ->
            requirement.set(
                "default-spec-id", values.id(metadata.path("default-spec-id").asLong()));
        case "assert-default-sort-order-id" ->
            requirement.set(
                "default-sort-order-id",
                values.id(metadata.path("default-sort-order-id").asLong()));
        default -> {}
      }
      requirements.add(values.mutate(requirement));
    }
    return requirements;
  }

  ObjectNode tableUpdate(String action, JsonNode metadata) {
    ObjectNode update = JSON.objectNode().put("action", action);
    long[] schemaIds = ids(metadata.path("schemas"), "schema-id");
    long[] specIds = ids(metadata.path("partition-specs"), "spec-id");
    long[] orderIds = ids(metadata.path("sort-orders"), "order-id");
    long[] snapshotIds = snapshotIds(metadata);
    switch (action) {
      case "assign-uuid" -> update.set("uuid", values.uuid(metadata.path("table-uuid").asText()));
      case "upgrade-format-version" ->
          update.set(
              "format-version", values.id(1, 2, 3, 4, metadata.path("format-version").asLong()));
      case "add-schema" -> {
        update.set("schema", schema(metadata));
        if (values.chance(0.3)) {
          update.set("last-column-id", values.id(metadata.path("last-column-id").asLong()));
        }
      }
      case "set-current-schema" -> update.set("schema-id", values.id(append(schemaIds, -1)));
      case "add-spec" -> update.set("spec", spec(metadata));
      case "set-default-spec" -> update.set("spec-id", values.id(append(specIds, -1)));
      case "add-sort-order" -> update.set("sort-order", sortOrder(metadata));
      case "set-default-sort-order" -> update.set("sort-order-id", values.id(append(orderIds, -1)));
      case "add-snapshot" -> update.set("snapshot", snapshot(metadata, snapshotIds));
      case "set-snapshot-ref" -> {
        update.set("ref-name", values.name("main", "branch", "tag"));
        update.set("snapshot-id", values.longValue(snapshotIds));
        update.set(
            "type",
            values.chance(0.8) ? JSON.textNode(values.pick("branch", "tag")) : values.name());
        if (values.chance(0.3)) {
          update.set("max-ref-age-ms", values.longValue(1000));
        }
        if (values.chance(0.3)) {
          update.set("min-snapshots-to-keep", values.id(1, 5));
        }
        if (values.chance(0.3)) {
          update.set("max-snapshot-age-ms", values.longValue(60_000));
        }
      }
      case "remove-snapshots" -> {
        ArrayNode removed = update.putArray("snapshot-ids");
        int count = values.random().nextInt(3);
        for (int i = 0; i < count; i++) {
          removed.add(values.longValue(snapshotIds));
        }
      }
      case "remove-snapshot-ref" -> update.set("ref-name", values.name("main", "branch", "tag"));
      case "set-location" -> update.set("location", location(metadata));
      case "set-properties" -> update.set("updates", values.stringMap(propertyKeys()));
      case "remove-properties" -> update.set("removals", values.stringArray(propertyKeys()));
      case "set-statistics" -> {
        JsonNode snapshotId = values.longValue(snapshotIds);
        if (values.chance(0.5)) {
          update.set("snapshot-id", snapshotId);
        }
        update.set("statistics", statistics(snapshotId));
      }
      case "remove-statistics", "remove-partition-statistics" ->
          update.set("snapshot-id", values.longValue(snapshotIds));
      case "set-partition-statistics" ->
          update.set(
              "partition-statistics",
              values.mutate(
                  JSON.objectNode()
                      .<ObjectNode>set("snapshot-id", values.longValue(snapshotIds))
                      .put("statistics-path", locationRoot + "/stats.parquet")
                      .<ObjectNode>set("file-size-in-bytes", values.longValue(100))));
      case "remove-partition-specs" -> update.set("spec-ids", values.idArray(specIds));
      case "remove-schemas" -> update.set("schema-ids", values.idArray(schemaIds));
      case "add-encryption-key" ->
          update.set(
              "encryption-key",
              values.mutate(
                  JSON.objectNode()
                      .<ObjectNode>set("key-id", values.name("key-1"))
                      .<ObjectNode>set(
                          "encrypted-key-metadata",
                          values.chance(0.7)
                              ? JSON.textNode("AAEC")
                              : JSON.textNode("%%%not-base64"))
                      .<ObjectNode>set("properties", values.stringMap())));
      case "remove-encryption-key" -> update.set("key-id", values.name("key-1"));
      default -> update.set("anything", values.wrongType());
    }
    return update;
  }

  ObjectNode viewUpdate(String action, JsonNode metadata) {
    ObjectNode update = JSON.objectNode().put("action", action);
    long[] schemaIds = ids(metadata.path("schemas"), "schema-id");
    long[] versionIds = ids(metadata.path("versions"), "version-id");
    switch (action) {
      case "assign-uuid" -> update.set("uuid", values.uuid(metadata.path("view-uuid").asText()));
      case "upgrade-format-version" -> update.set("format-version", values.id(1, 2));
      case "add-schema" -> update.set("schema", schema(metadata));
      case "set-current-schema" -> update.set("schema-id", values.id(append(schemaIds, -1)));
      case "set-location" -> update.set("location", location(metadata));
      case "set-properties" -> update.set("updates", values.stringMap("comment"));
      case "remove-properties" -> update.set("removals", values.stringArray("comment"));
      case "add-view-version" -> update.set("view-version", viewVersion(schemaIds, versionIds));
      case "set-current-view-version" ->
          update.set("view-version-id", values.id(append(versionIds, -1)));
      default -> update.set("anything", values.wrongType());
    }
    return update;
  }

  private JsonNode viewVersion(long[] schemaIds, long[] versionIds) {
    ObjectNode version = JSON.objectNode();
    version.set("version-id", values.id(append(versionIds, versionIds.length + 1L)));
    version.set("schema-id", values.id(append(schemaIds, -1)));
    version.set("timestamp-ms", values.longValue(System.currentTimeMillis()));
    version.set("summary", values.stringMap("engine-name"));
    ArrayNode representations = version.putArray("representations");
    int count = values.random().nextInt(3);
    for (int i = 0; i < count; i++) {
      representations.add(
          values.mutate(
              JSON.objectNode()
                  .put("type", values.chance(0.9) ? "sql" : "unknown")
                  .<ObjectNode>set("sql", values.name("select 1"))
                  .<ObjectNode>set("dialect", values.name("spark", "trino"))));
    }
    version.set(
        "default-namespace",
        values.chance(0.8) ? JSON.arrayNode().add("fuzz") : values.stringArray());
    return values.mutate(version);
  }

  private JsonNode schema(JsonNode metadata) {
    if (values.chance(0.1)) {
      return values.wrongType();
    }
    JsonNode current = currentSchema(metadata);
    ObjectNode schema = current.isObject() ? current.deepCopy() : JSON.objectNode();
    schema.put("type", "struct");
    schema.set("schema-id", values.id(append(ids(metadata.path("schemas"), "schema-id"), 1000)));
    ArrayNode fields =
        schema.has("fields") && schema.get("fields").isArray()
            ? (ArrayNode) schema.get("fields")
            : schema.putArray("fields");
    if (values.chance(0.6)) {
      fields.add(
          values.mutate(
              JSON.objectNode()
                  .<ObjectNode>set("id", values.id(metadata.path("last-column-id").asLong() + 1, 1))
                  .<ObjectNode>set("name", values.name("extra_" + values.random().nextInt(1000)))
                  .put("required", values.random().nextBoolean())
                  .<ObjectNode>set(
                      "type",
                      values.chance(0.8)
                          ? JSON.textNode(
                              values.pick(
                                  "long",
                                  "string",
                                  "int",
                                  "decimal(9,2)",
                                  "timestamp",
                                  "variant",
                                  "unknown"))
                          : values.pick(
                              JSON.textNode("decimal(99,100)"),
                              JSON.textNode("fixed[-1]"),
                              JSON.textNode("no-such-type"),
                              values.wrongType()))));
    }
    if (values.chance(0.2)) {
      schema.set("identifier-field-ids", values.idArray(1, 2, 999));
    }
    return values.mutate(schema);
  }

  private JsonNode spec(JsonNode metadata) {
    if (values.chance(0.1)) {
      return values.wrongType();
    }
    ObjectNode spec = JSON.objectNode();
    if (values.chance(0.5)) {
      spec.set("spec-id", values.id(append(ids(metadata.path("partition-specs"), "spec-id"), 50)));
    }
    ArrayNode fields = spec.putArray("fields");
    int count = values.random().nextInt(3);
    for (int i = 0; i < count; i++) {
      fields.add(
          values.mutate(
              JSON.objectNode()
                  .<ObjectNode>set("source-id", values.id(1, 2))
                  .<ObjectNode>set("field-id", values.id(1000, 1001))
                  .<ObjectNode>set("name", values.name("p_" + i))
                  .<ObjectNode>set(
                      "transform",
                      JSON.textNode(
                          values.pick(
                              "identity",
                              "bucket[16]",
                              "truncate[4]",
                              "day",
                              "void",
                              "bucket[-1]",
                              "bucket[99999999999]",
                              "nonsense")))));
    }
    return values.mutate(spec);
  }

  private JsonNode sortOrder(JsonNode metadata) {
    if (values.chance(0.1)) {
      return values.wrongType();
    }
    ObjectNode order = JSON.objectNode();
    order.set("order-id", values.id(append(ids(metadata.path("sort-orders"), "order-id"), 7, 0)));
    ArrayNode fields = order.putArray("fields");
    int count = values.random().nextInt(3);
    for (int i = 0; i < count; i++) {
      fields.add(
          values.mutate(
              JSON.objectNode()
                  .<ObjectNode>set("source-id", values.id(1, 2))
                  .put("transform", values.pick("identity", "bucket[4]", "nonsense"))
                  .put("direction", values.pick("asc", "desc", "sideways"))
                  .put("null-order", values.pick("nulls-first", "nulls-last", "nulls-middle"))));
    }
    return values.mutate(order);
  }

  private JsonNode snapshot(JsonNode metadata, long[] snapshotIds) {
    ObjectNode snapshot = JSON.objectNode();
    snapshot.set("snapshot-id", values.longValue(values.random().nextLong() & Long.MAX_VALUE));
    if (values.chance(0.5)) {
      snapshot.set("parent-snapshot-id", values.longValue(snapshotIds));
    }
    snapshot.set(
        "sequence-number", values.longValue(metadata.path("last-sequence-number").asLong() + 1));
    snapshot.set("timestamp-ms", values.longValue(System.currentTimeMillis()));
    snapshot.set(
        "manifest-list",
        values.chance(0.8)
            ? JSON.textNode(locationRoot + "/snap-" + values.random().nextInt(1000) + ".avro")
            : values.wrongType());
    snapshot.set(
        "summary",
        values.chance(0.8)
            ? JSON.objectNode().put("operation", values.pick("append", "overwrite", "bogus"))
            : values.stringMap());
    snapshot.set("schema-id", values.id(ids(metadata.path("schemas"), "schema-id")));
    if (values.chance(0.2)) {
      snapshot.set("first-row-id", values.longValue(0));
      snapshot.set("added-rows", values.longValue(10));
    }
    return values.mutate(snapshot);
  }

  private JsonNode statistics(JsonNode snapshotId) {
    ObjectNode statistics = JSON.objectNode();
    statistics.set("snapshot-id", snapshotId);
    statistics.put("statistics-path", locationRoot + "/stats.puffin");
    statistics.set("file-size-in-bytes", values.longValue(100));
    statistics.set("file-footer-size-in-bytes", values.longValue(10));
    ArrayNode blobs = statistics.putArray("blob-metadata");
    if (values.chance(0.5)) {
      blobs.add(
          values.mutate(
              JSON.objectNode()
                  .put("type", "apache-datasketches-theta-v1")
                  .<ObjectNode>set("snapshot-id", snapshotId)
                  .<ObjectNode>set("sequence-number", values.longValue(1))
                  .<ObjectNode>set("fields", values.idArray(1, 2))));
    }
    return values.mutate(statistics);
  }

  private JsonNode location(JsonNode metadata) {
    // Never a relative path or a system directory: a valid generated location stays in the
    // test's own directory (location rules themselves are tested elsewhere).
    return values.pick(
        JSON.textNode(metadata.path("location").asText()),
        JSON.textNode(locationRoot + "/moved-" + values.random().nextInt(3)),
        JSON.textNode(""),
        JSON.nullNode(),
        JSON.numberNode(42),
        JSON.arrayNode());
  }

  private static String[] propertyKeys() {
    return new String[] {
      "comment",
      "write.format.default",
      "format-version",
      "commit.retry.num-retries",
      "lakestream.kind",
      "lakestream.buckets",
      "write.metadata.previous-versions-max",
      "write.metadata.delete-after-commit.enabled"
    };
  }

  private static JsonNode currentSchema(JsonNode metadata) {
    long current = metadata.path("current-schema-id").asLong();
    for (JsonNode schema : metadata.path("schemas")) {
      if (schema.path("schema-id").asLong() == current) {
        return schema;
      }
    }
    return JSON.objectNode();
  }

  private static long[] snapshotIds(JsonNode metadata) {
    return ids(metadata.path("snapshots"), "snapshot-id");
  }

  private static long[] ids(JsonNode array, String field) {
    List<Long> ids = new ArrayList<>();
    for (JsonNode element : array) {
      if (element.path(field).canConvertToLong()) {
        ids.add(element.path(field).asLong());
      }
    }
    return ids.stream().mapToLong(Long::longValue).toArray();
  }

  private static long[] append(long[] ids, long... more) {
    long[] all = java.util.Arrays.copyOf(ids, ids.length + more.length);
    System.arraycopy(more, 0, all, ids.length, more.length);
    return all;
  }
}
