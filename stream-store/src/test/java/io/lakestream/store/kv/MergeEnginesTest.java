package io.lakestream.store.kv;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class MergeEnginesTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              required(1, "id", Types.IntegerType.get()),
              optional(2, "name", Types.StringType.get()),
              optional(3, "qty", Types.IntegerType.get()),
              optional(4, "ok", Types.BooleanType.get()),
              optional(5, "at", Types.TimestampType.withZone()),
              optional(6, "price", Types.DecimalType.of(4, 1))),
          Set.of(1));

  private static Map<String, String> aggregation(String... fieldFunctions) {
    Map<String, String> properties = new HashMap<>();
    properties.put("lakestream.merge-engine", "aggregation");
    for (int i = 0; i < fieldFunctions.length; i += 2) {
      properties.put(fieldFunctions[i], fieldFunctions[i + 1]);
    }
    return properties;
  }

  private static void assertRefused(Map<String, String> properties, String message) {
    assertThatThrownBy(() -> MergeEngines.create(SCHEMA, properties))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void invalidCombinationsAreRefusedAtSetUp() {
    assertRefused(
        Map.of("lakestream.merge-engine", "newest"),
        "Unknown lakestream.merge-engine 'newest': expected one of [last-row, first-row,"
            + " versioned, aggregation]");
    assertRefused(
        aggregation("lakestream.fields.name.aggregate-function", "sum"),
        "Aggregate function sum cannot aggregate column 'name' of type string: it takes integer,"
            + " long, float, double, decimal");
    assertRefused(
        aggregation("lakestream.fields.name.aggregate-function", "product"),
        "Aggregate function product cannot aggregate column 'name' of type string: it takes"
            + " integer, long, float, double, decimal");
    assertRefused(
        aggregation("lakestream.fields.qty.aggregate-function", "bool_and"),
        "Aggregate function bool_and cannot aggregate column 'qty' of type int: it takes boolean");
    assertRefused(
        aggregation("lakestream.fields.qty.aggregate-function", "listagg"),
        "Aggregate function listagg cannot aggregate column 'qty' of type int: it takes string");
    assertRefused(
        aggregation("lakestream.fields.name.aggregate-function", "count"),
        "Aggregate function count cannot aggregate column 'name' of type string: it takes"
            + " integer, long");
    assertRefused(
        aggregation("lakestream.fields.qty.aggregate-function", "median"),
        "Column 'qty' has unknown aggregate function 'median': expected one of sum, product, min,"
            + " max, count, first_value, first_non_null_value, last_value, last_non_null_value,"
            + " listagg, bool_and, bool_or");
    assertRefused(
        aggregation("lakestream.fields.id.aggregate-function", "max"),
        "Column 'id' is a primary-key column and cannot have an aggregate function (max)");
    assertRefused(
        aggregation("lakestream.fields.nope.aggregate-function", "max"),
        "Property lakestream.fields.nope.aggregate-function names column 'nope', which is not in"
            + " the schema");
    assertRefused(
        aggregation("lakestream.fields.qty.colour", "red"),
        "Unknown property lakestream.fields.qty.colour: expected lakestream.fields.<column>"
            + ".aggregate-function or .listagg-delimiter");
    assertRefused(
        aggregation("lakestream.fields.qty.listagg-delimiter", "|"),
        "Column 'qty' has a listagg-delimiter but aggregate function last_non_null_value, not"
            + " listagg");
    assertRefused(
        Map.of("lakestream.fields.qty.aggregate-function", "sum"),
        "Property lakestream.fields.qty.aggregate-function is only for"
            + " lakestream.merge-engine=aggregation, not last-row");
    assertRefused(
        Map.of("lakestream.merge-engine", "versioned"),
        "lakestream.merge-engine=versioned needs the property"
            + " lakestream.merge-engine.version-column");
    assertRefused(
        Map.of(
            "lakestream.merge-engine", "versioned",
            "lakestream.merge-engine.version-column", "nope"),
        "Version column 'nope' (lakestream.merge-engine.version-column) is not in the schema");
    assertRefused(
        Map.of(
            "lakestream.merge-engine", "versioned",
            "lakestream.merge-engine.version-column", "name"),
        "Version column 'name' has type string: a version must be numeric, a date or a timestamp");
    assertRefused(
        Map.of(
            "lakestream.merge-engine", "versioned",
            "lakestream.merge-engine.version-column", "id"),
        "Version column 'id' is a primary-key column: its value never changes for a key");
    assertRefused(
        Map.of(
            "lakestream.merge-engine", "first-row",
            "lakestream.merge-engine.version-column", "at"),
        "Property lakestream.merge-engine.version-column is only for"
            + " lakestream.merge-engine=versioned, not first-row");
    assertThat(
            MergeEngines.create(
                SCHEMA,
                Map.of(
                    "lakestream.merge-engine", "versioned",
                    "lakestream.merge-engine.version-column", "at")))
        .isNotNull();
  }

  private static Object[] fold(MergeEngine engine, Object[]... rows) {
    Object[] state = null;
    for (Object[] row : rows) {
      state = engine.upsert(state, Mutation.upsert(row));
    }
    return state;
  }

  @Test
  void aggregateFunctionsCombineOldAndNewValues() {
    Schema schema =
        new Schema(
            List.of(
                required(1, "id", Types.IntegerType.get()), optional(2, "v", Types.LongType.get())),
            Set.of(1));
    Map<String, Long> expected = new HashMap<>();
    expected.put("sum", 11L);
    expected.put("product", 40L);
    expected.put("min", 2L);
    expected.put("max", 5L);
    expected.put("count", 3L);
    expected.put("first_value", null);
    expected.put("first_non_null_value", 4L);
    expected.put("last_value", null);
    expected.put("last_non_null_value", 5L);
    for (Map.Entry<String, Long> entry : expected.entrySet()) {
      MergeEngine engine =
          MergeEngines.create(
              schema, aggregation("lakestream.fields.v.aggregate-function", entry.getKey()));
      Object[] state =
          fold(
              engine,
              new Object[] {1, null},
              new Object[] {1, 4L},
              new Object[] {1, null},
              new Object[] {1, 2L},
              new Object[] {1, 5L},
              new Object[] {1, null});
      assertThat(state[1]).as(entry.getKey()).isEqualTo(entry.getValue());
      // A partial update that does not name the column leaves it alone.
      Object[] after = engine.upsert(state, Mutation.partialUpdate(new Object[] {1, 100L}, 0));
      assertThat(after[1]).as(entry.getKey()).isEqualTo(entry.getValue());
    }
  }

  @Test
  void aggregateFunctionsOverOtherTypes() {
    MergeEngine engine =
        MergeEngines.create(
            SCHEMA,
            aggregation(
                "lakestream.fields.name.aggregate-function", "listagg",
                "lakestream.fields.name.listagg-delimiter", "|",
                "lakestream.fields.qty.aggregate-function", "sum",
                "lakestream.fields.ok.aggregate-function", "bool_and",
                "lakestream.fields.at.aggregate-function", "min",
                "lakestream.fields.price.aggregate-function", "product"));
    Object[] state =
        fold(
            engine,
            new Object[] {1, "a", 1, true, 50L, new BigDecimal("1.5")},
            new Object[] {1, null, null, null, null, null},
            new Object[] {1, "b", 2, false, 20L, new BigDecimal("1.5")},
            new Object[] {1, "c", 3, true, 30L, null});
    assertThat(state).containsExactly(1, "a|b|c", 6, false, 20L, new BigDecimal("2.3"));

    MergeEngine or =
        MergeEngines.create(
            SCHEMA,
            aggregation(
                "lakestream.fields.ok.aggregate-function", "bool_or",
                "lakestream.fields.name.aggregate-function", "listagg"));
    assertThat(
            fold(
                or,
                new Object[] {1, "x", null, false, null, null},
                new Object[] {1, "y", null, null, null, null},
                new Object[] {1, null, null, true, null, null}))
        .containsExactly(1, "x,y", null, true, null, null);
  }

  @Test
  void aggregatesThatOverflowAreRefused() {
    MergeEngine engine =
        MergeEngines.create(
            SCHEMA,
            aggregation(
                "lakestream.fields.qty.aggregate-function", "sum",
                "lakestream.fields.price.aggregate-function", "sum"));
    Object[] state = fold(engine, new Object[] {1, null, Integer.MAX_VALUE, null, null, null});
    assertThatThrownBy(
            () ->
                engine.upsert(state, Mutation.upsert(new Object[] {1, null, 1, null, null, null})))
        .isInstanceOf(InvalidMutationException.class)
        .hasMessage("sum of column 'qty' overflows its type int");
    Object[] priced =
        fold(engine, new Object[] {1, null, null, null, null, new BigDecimal("999.0")});
    assertThatThrownBy(
            () ->
                engine.upsert(
                    priced,
                    Mutation.upsert(
                        new Object[] {1, null, null, null, null, new BigDecimal("1.0")})))
        .isInstanceOf(InvalidMutationException.class)
        .hasMessage("sum of column 'price' overflows its type decimal(4, 1)");
  }

  @Test
  void partialUpdatesAggregateOnlyTheNamedColumns() {
    MergeEngine engine =
        MergeEngines.create(SCHEMA, aggregation("lakestream.fields.qty.aggregate-function", "sum"));
    Object[] state =
        engine.upsert(null, Mutation.partialUpdate(new Object[] {1, "n", 5, true, 1L, null}, 0, 2));
    assertThat(state).containsExactly(1, null, 5, null, null, null);
    state =
        engine.upsert(
            state, Mutation.partialUpdate(new Object[] {1, "n", 5, true, 1L, null}, 0, 1, 2));
    assertThat(state).containsExactly(1, "n", 10, null, null, null);
    assertThat(
            engine.delete(state, Mutation.delete(new Object[] {1, null, null, null, null, null})))
        .isNull();
  }
}
