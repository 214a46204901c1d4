package io.lakestream.openapi.fuzz;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Seeded generators of JSON values for request fields: a valid value of the field's kind most of
 * the time, otherwise an edge or invalid one (null, a value of the wrong JSON type, an unknown id,
 * a number past int or long range, a malformed UUID, an empty or very long string, nulls inside
 * arrays and maps). Deterministic for a given {@link Random}.
 */
final class JsonValues {
  static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Random random;

  JsonValues(Random random) {
    this.random = requireNonNull(random, "random is null");
  }

  Random random() {
    return random;
  }

  boolean chance(double probability) {
    return random.nextDouble() < probability;
  }

  @SafeVarargs
  final <T> T pick(T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  <T> T pick(List<T> choices) {
    return choices.get(random.nextInt(choices.size()));
  }

  /** One of the suppliers' values, chosen uniformly. */
  @SafeVarargs
  final JsonNode oneOf(Supplier<JsonNode>... suppliers) {
    return suppliers[random.nextInt(suppliers.length)].get();
  }

  /** A value of any JSON type, none of them what the field wants. */
  JsonNode wrongType() {
    return oneOf(
        JSON::nullNode,
        () -> JSON.booleanNode(random.nextBoolean()),
        () -> JSON.textNode("text"),
        () -> JSON.numberNode(1.5),
        () -> JSON.arrayNode().add(1).addNull(),
        () -> JSON.objectNode().put("unexpected", 1),
        () -> JSON.objectNode());
  }

  /** An integer id: one of {@code known} mostly, else an unknown, negative or huge one. */
  JsonNode id(long... known) {
    if (known.length > 0 && chance(0.6)) {
      return JSON.numberNode(known[random.nextInt(known.length)]);
    }
    return oneOf(
        () -> JSON.numberNode(987_654),
        () -> JSON.numberNode(-1),
        () -> JSON.numberNode(-2),
        () -> JSON.numberNode(Integer.MAX_VALUE),
        () -> JSON.numberNode(Integer.MIN_VALUE),
        () -> JSON.numberNode(2_147_483_648L),
        () -> JSON.numberNode(Long.MAX_VALUE),
        () -> JSON.numberNode(new BigInteger("123456789012345678901234567890")),
        () -> JSON.numberNode(1e300),
        () -> JSON.textNode("1"),
        this::wrongType);
  }

  /** A long, such as a snapshot id or a timestamp. */
  JsonNode longValue(long... known) {
    if (known.length > 0 && chance(0.5)) {
      return JSON.numberNode(known[random.nextInt(known.length)]);
    }
    return oneOf(
        () -> JSON.numberNode(random.nextLong()),
        () -> JSON.numberNode(0L),
        () -> JSON.numberNode(-1L),
        () -> JSON.numberNode(Long.MIN_VALUE),
        () -> JSON.numberNode(Long.MAX_VALUE),
        () -> JSON.numberNode(new BigInteger("99999999999999999999999")),
        this::wrongType);
  }

  JsonNode uuid(String known) {
    return oneOf(
        () -> JSON.textNode(known),
        () -> JSON.textNode(known),
        () -> JSON.textNode(new UUID(random.nextLong(), random.nextLong()).toString()),
        () -> JSON.textNode("not-a-uuid"),
        () -> JSON.textNode(""),
        () -> JSON.textNode("00000000-0000-0000-0000-00000000000g"),
        () -> JSON.textNode(known + known),
        this::wrongType);
  }

  /** A short name, an odd one or the wrong type. */
  JsonNode name(String... valid) {
    if (valid.length > 0 && chance(0.6)) {
      return JSON.textNode(valid[random.nextInt(valid.length)]);
    }
    return oneOf(
        () -> JSON.textNode(""),
        () -> JSON.textNode(" "),
        () -> JSON.textNode("x".repeat(5000)),
        () -> JSON.textNode("a\u0000b"),
        () -> JSON.textNode("\uD83D\uDE00"),
        () -> JSON.textNode("../up"),
        () -> JSON.textNode("fuzz_" + random.nextInt(1000)),
        this::wrongType);
  }

  /** A string map with, now and then, a null value, a non-string value or a huge key. */
  JsonNode stringMap(String... keys) {
    if (chance(0.15)) {
      return wrongType();
    }
    ObjectNode map = JSON.objectNode();
    int entries = random.nextInt(4);
    for (int i = 0; i < entries; i++) {
      String key = keys.length > 0 && chance(0.5) ? pick(keys) : "fuzz.key-" + random.nextInt(50);
      JsonNode value =
          chance(0.8)
              ? JSON.textNode("v" + random.nextInt(100))
              : pick(JSON.nullNode(), JSON.numberNode(3), JSON.objectNode(), JSON.arrayNode());
      map.set(key, value);
    }
    return map;
  }

  /** A string array with, now and then, a null or non-string element. */
  JsonNode stringArray(String... valid) {
    if (chance(0.15)) {
      return wrongType();
    }
    ArrayNode array = JSON.arrayNode();
    int entries = random.nextInt(4);
    for (int i = 0; i < entries; i++) {
      if (chance(0.8)) {
        array.add(valid.length > 0 ? pick(valid) : "k" + random.nextInt(20));
      } else {
        array.add(pick(JSON.nullNode(), JSON.numberNode(7), JSON.objectNode()));
      }
    }
    return array;
  }

  /** An array of ids drawn from {@link #id}. */
  JsonNode idArray(long... known) {
    if (chance(0.15)) {
      return wrongType();
    }
    ArrayNode array = JSON.arrayNode();
    int entries = random.nextInt(4);
    for (int i = 0; i < entries; i++) {
      array.add(id(known));
    }
    return array;
  }

  /**
   * Mutates an object in place, now and then: drops a field, nulls a field, sets a field to a value
   * of the wrong type or adds an unknown field.
   */
  JsonNode mutate(ObjectNode object) {
    if (object.isEmpty() || chance(0.5)) {
      return object;
    }
    List<String> names = object.properties().stream().map(java.util.Map.Entry::getKey).toList();
    String field = pick(names);
    switch (random.nextInt(4)) {
      case 0 -> object.remove(field);
      case 1 -> object.putNull(field);
      case 2 -> object.set(field, wrongType());
      default -> object.put("unknown-field", "x");
    }
    return object;
  }
}
