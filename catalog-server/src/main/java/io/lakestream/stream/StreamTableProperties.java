package io.lakestream.stream;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.PartitionField;
import io.lakestream.client.Partitioning;
import io.lakestream.client.TableKind;
import io.lakestream.client.arrow.IcebergArrowSchemas;
import io.lakestream.lake.LakeFormat;
import io.lakestream.lake.LakeTableValidators;
import io.lakestream.store.kv.KvSchema;
import io.lakestream.store.kv.MergeEngines;
import io.lakestream.store.log.TableRetention;
import io.lakestream.tiering.TieringConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * The table properties that make an Iceberg table a streaming table, and their validation when a
 * table is created or a commit changes them or the schema (so a bad value is a 400, not a later
 * write failure).
 */
public final class StreamTableProperties {
  public static final String KIND = LakestreamProperties.KIND;
  public static final String BUCKETS = LakestreamProperties.BUCKETS;
  public static final String BUCKET_KEY = LakestreamProperties.BUCKET_KEY;

  public static final String LOG = TableKind.LOG.value();
  public static final String PRIMARY_KEY = TableKind.PRIMARY_KEY.value();
  private static final Set<String> KINDS = Set.of(LOG, PRIMARY_KEY);
  public static final int MAX_BUCKETS = LakestreamProperties.MAX_BUCKETS;

  private StreamTableProperties() {}

  /**
   * @throws BadRequestException naming the property and the value that is wrong
   */
  public static void validate(Map<String, String> properties, Schema schema) {
    String kind = properties.get(KIND);
    if (kind == null) {
      for (String key : properties.keySet()) {
        if (key.startsWith(LakestreamProperties.PREFIX)) {
          throw new BadRequestException("Property %s needs %s=log or primary-key", key, KIND);
        }
      }
      return;
    }
    if (!KINDS.contains(kind)) {
      throw new BadRequestException("Invalid %s '%s': expected log or primary-key", KIND, kind);
    }
    buckets(properties);
    if (LOG.equals(kind)) {
      for (String key : properties.keySet()) {
        if (key.equals(MergeEngines.MERGE_ENGINE)
            || key.equals(MergeEngines.VERSION_COLUMN)
            || key.startsWith(MergeEngines.FIELDS_PREFIX)) {
          throw new BadRequestException(
              "Invalid property %s='%s': it is only for %s=%s tables",
              key, properties.get(key), KIND, PRIMARY_KEY);
        }
      }
    }
    try {
      TieringConfig.interval(properties);
      TableRetention.of(properties, Duration.ZERO);
      TieringConfig.compactionDeleteFiles(properties);
      TieringConfig.compactionSmallFiles(properties);
      LakeFormat.of(properties);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("%s", e.getMessage());
    }
    if (schema != null) {
      try {
        IcebergArrowSchemas.toArrowSchema(schema);
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        throw new BadRequestException("A stream table cannot have this schema: %s", e.getMessage());
      }
    }
    if (PRIMARY_KEY.equals(kind) && schema != null) {
      validatePrimaryKey(properties, schema);
    }
    String bucketKey = properties.get(BUCKET_KEY);
    if (bucketKey != null && schema != null) {
      for (String column : bucketKey.split(",")) {
        if (schema.findField(column.trim()) == null) {
          throw new BadRequestException(
              "Invalid %s: column '%s' is not in the table schema", BUCKET_KEY, column.trim());
        }
      }
    }
  }

  /**
   * Validates the properties of a table being created ({@link #validate}) and also refuses a {@code
   * lakestream.} property that Lakestream does not know, which is almost always a misspelt one
   * whose intended setting would otherwise silently not apply.
   *
   * @throws BadRequestException naming the property and the value that is wrong
   */
  public static void validateCreate(Map<String, String> properties, Schema schema) {
    validate(properties, schema);
    for (Map.Entry<String, String> property : properties.entrySet()) {
      String key = property.getKey();
      if (key.startsWith(LakestreamProperties.PREFIX)
          && !KNOWN.contains(key)
          && !key.startsWith(MergeEngines.FIELDS_PREFIX)) {
        throw new BadRequestException(
            "Unknown table property %s='%s': expected one of %s or %s<column>.*",
            key, property.getValue(), new java.util.TreeSet<>(KNOWN), MergeEngines.FIELDS_PREFIX);
      }
    }
  }

  /** Every {@code lakestream.} table property but the per-column ones. */
  private static final Set<String> KNOWN =
      Set.of(
          KIND,
          BUCKETS,
          BUCKET_KEY,
          LakeFormat.PROPERTY,
          MergeEngines.MERGE_ENGINE,
          MergeEngines.VERSION_COLUMN,
          TieringConfig.INTERVAL_PROPERTY,
          TableRetention.PROPERTY,
          TieringConfig.COMPACTION_DELETE_FILES_PROPERTY,
          TieringConfig.COMPACTION_SMALL_FILES_PROPERTY);

  /**
   * Refuses a commit that changes what a streaming table's data already depends on: its kind (or
   * removing it, which would strand the stream), its bucket key, and its bucket count, which may
   * only grow, and only for a log table whose rows go to buckets round-robin (rows already written
   * sit in the buckets the old count and key gave them).
   */
  private static void checkUnchangeable(TableMetadata base, TableMetadata updated) {
    Map<String, String> before = base.properties();
    Map<String, String> after = updated.properties();
    if (!after.containsKey(KIND)) {
      throw new BadRequestException(
          "%s cannot be removed from streaming table %s (was '%s')",
          KIND, updated.location(), before.get(KIND));
    }
    if (!before.get(KIND).equals(after.get(KIND))) {
      throw new BadRequestException(
          "%s cannot change once a streaming table exists (from '%s' to '%s')",
          KIND, before.get(KIND), after.get(KIND));
    }
    int bucketsBefore;
    try {
      bucketsBefore = buckets(before);
    } catch (BadRequestException e) {
      return; // a table made before the value was checked may fix it
    }
    int bucketsAfter = buckets(after);
    if (bucketsAfter < bucketsBefore) {
      throw new BadRequestException(
          "%s cannot shrink (from %d to '%s'): the rows of the dropped buckets would no longer be"
              + " read",
          BUCKETS, bucketsBefore, after.get(BUCKETS));
    }
    boolean keyed = PRIMARY_KEY.equals(before.get(KIND)) || before.containsKey(BUCKET_KEY);
    if (bucketsAfter != bucketsBefore && keyed) {
      throw new BadRequestException(
          "%s cannot change on a table whose rows go to buckets by key (from %d to '%s'): a key's"
              + " rows would move to another bucket",
          BUCKETS, bucketsBefore, after.get(BUCKETS));
    }
    if (!bucketKeyColumns(before).equals(bucketKeyColumns(after))) {
      throw new BadRequestException(
          "%s cannot change once a streaming table exists (from '%s' to '%s')",
          BUCKET_KEY, before.get(BUCKET_KEY), after.get(BUCKET_KEY));
    }
  }

  private static List<String> bucketKeyColumns(Map<String, String> properties) {
    String value = properties.get(BUCKET_KEY);
    return value == null
        ? List.of()
        : java.util.Arrays.stream(value.split(",")).map(String::trim).toList();
  }

  private static void validatePrimaryKey(Map<String, String> properties, Schema schema) {
    if (schema.identifierFieldIds().isEmpty()) {
      throw new BadRequestException(
          "A primary-key table needs a primary key: set the schema's identifier fields");
    }
    String bucketKey = properties.get(BUCKET_KEY);
    try {
      KvSchema.create(
          Map.of(schema.schemaId(), schema),
          schema.schemaId(),
          bucketKey == null
              ? List.of()
              : java.util.Arrays.stream(bucketKey.split(",")).map(String::trim).toList());
      MergeEngines.create(schema, properties);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("Invalid primary-key table: %s", e.getMessage());
    }
  }

  /**
   * Validates a table commit ({@link io.lakestream.catalog.CommitValidator}) whenever it creates
   * the table, changes a {@code lakestream.*} property or changes the current schema: the resulting
   * properties and schema must pass {@link #validate}. Other commits (appends to a stream table,
   * for example) are not checked again.
   *
   * @param base the table's current metadata, or null when the commit creates the table
   * @throws BadRequestException naming the property and the value that is wrong
   */
  public static void validateCommit(TableMetadata base, TableMetadata updated) {
    if (base != null && updated.properties().containsKey(KIND)) {
      checkLakeSnapshots(base, updated);
    }
    if (base != null
        && base.currentSchemaId() == updated.currentSchemaId()
        && base.defaultSpecId() == updated.defaultSpecId()
        && streamProperties(base.properties()).equals(streamProperties(updated.properties()))) {
      return;
    }
    if (base == null || !base.properties().containsKey(KIND)) {
      validateCreate(updated.properties(), updated.schema());
    } else {
      validate(updated.properties(), updated.schema());
      checkUnchangeable(base, updated);
    }
    if (!updated.properties().containsKey(KIND)) {
      return;
    }
    if (base != null
        && base.properties().containsKey(KIND)
        && !base.spec().compatibleWith(updated.spec())) {
      throw new BadRequestException(
          "A streaming table's partition spec cannot change (from %s to %s)",
          describe(base.spec()), describe(updated.spec()));
    }
    try {
      Partitioning.of(
          partitionFields(updated.spec(), updated.schema()),
          IcebergArrowSchemas.toArrowSchema(updated.schema()));
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("Invalid partition spec: %s", e.getMessage());
    }
    LakeFormat format = LakeFormat.of(updated.properties());
    // A table whose property is invalid (made before it was checked) tiered into Iceberg.
    LakeFormat before = base == null ? null : baseFormat(base);
    if (base != null
        && base.properties().containsKey(KIND)
        && (before == null ? LakeFormat.ICEBERG : before) != format) {
      throw new BadRequestException(
          "%s cannot change once a streaming table exists (from %s to %s)",
          LakeFormat.PROPERTY,
          before == null ? base.properties().get(LakeFormat.PROPERTY) : before.value(),
          format.value());
    }
    try {
      LakeTableValidators.of(format.value()).checkTable(base, updated);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("%s", e.getMessage());
    }
    if (PRIMARY_KEY.equals(updated.properties().get(KIND))) {
      for (org.apache.iceberg.PartitionField field : updated.spec().fields()) {
        if (!updated.schema().identifierFieldIds().contains(field.sourceId())) {
          throw new BadRequestException(
              "Invalid partition spec: partition field %s of a primary-key table must come from a"
                  + " primary-key column",
              field.name());
        }
      }
    }
  }

  /**
   * The snapshots a commit adds must be ones the table's lake format allows: those of a table
   * tiered into Paimon are Paimon's (tiering points the catalog entry at the Iceberg metadata
   * Paimon writes), so an Iceberg writer's snapshot, which would be dropped at the next round, is
   * refused.
   */
  private static void checkLakeSnapshots(TableMetadata base, TableMetadata updated) {
    LakeFormat format = baseFormat(base);
    if (format == null) {
      return;
    }
    try {
      LakeTableValidators.of(format.value()).checkSnapshots(base, updated);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("%s", e.getMessage());
    }
  }

  /**
   * The lake format of a table's current metadata, or null when its property is invalid (a table
   * made before the property was checked): such a table's commits may fix the property.
   */
  private static LakeFormat baseFormat(TableMetadata base) {
    try {
      return LakeFormat.of(base.properties());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String describe(PartitionSpec spec) {
    List<String> fields = new ArrayList<>();
    spec.fields().forEach(field -> fields.add(field.name() + "=" + field.transform()));
    return fields.isEmpty() ? "unpartitioned" : String.join(", ", fields);
  }

  /** The fields of a partition spec as the stream RPC describes them. */
  public static List<PartitionField> partitionFields(PartitionSpec spec, Schema schema) {
    List<PartitionField> fields = new ArrayList<>();
    for (org.apache.iceberg.PartitionField field : spec.fields()) {
      String source = schema.findColumnName(field.sourceId());
      fields.add(
          new PartitionField(
              field.name(),
              field.sourceId(),
              source == null ? "#" + field.sourceId() : source,
              field.transform().toString()));
    }
    return fields;
  }

  private static Map<String, String> streamProperties(Map<String, String> properties) {
    Map<String, String> stream = new TreeMap<>();
    properties.forEach(
        (key, value) -> {
          if (key.startsWith(LakestreamProperties.PREFIX)) {
            stream.put(key, value);
          }
        });
    return stream;
  }

  /** The bucket count (default 1). */
  public static int buckets(Map<String, String> properties) {
    String value = properties.getOrDefault(BUCKETS, "1");
    try {
      int buckets = Integer.parseInt(value.trim());
      if (buckets < 1 || buckets > MAX_BUCKETS) {
        throw new NumberFormatException();
      }
      return buckets;
    } catch (NumberFormatException e) {
      throw new BadRequestException(
          "Invalid %s '%s': expected an integer from 1 to %d", BUCKETS, value, MAX_BUCKETS);
    }
  }
}
