package io.lakestream.lake.paimon;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.lake.TieringException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;

/**
 * Where the Paimon table of a streaming table lives and how it is made from the table's Iceberg
 * definition.
 *
 * <p><b>Layout.</b> The Paimon table of a streaming table whose Iceberg location is {@code L} is a
 * table of a Paimon filesystem warehouse at {@code L/paimon}: {@code L/paimon/lakestream.db/<table
 * name>/} with Paimon's {@code snapshot/}, {@code manifest/}, {@code schema/} and bucket
 * directories, and {@code metadata/} holding the Iceberg metadata Paimon writes after each commit
 * (table option {@code metadata.iceberg.storage=table-location}).
 *
 * <p><b>Schema.</b> Each Iceberg column becomes a Paimon column <em>with the same field id</em>, so
 * the Iceberg schema Paimon generates has the ids of the catalog entry's schema and Iceberg readers
 * of the entry match the Parquet columns Paimon writes. Identity partition fields become Paimon
 * partition keys, identifier fields the primary key (a primary-key table, merge engine {@code
 * deduplicate}: the log already holds the merged rows) with {@code lakestream.buckets} fixed
 * buckets; a log table becomes an append table without buckets.
 *
 * <p>Stateless and thread safe.
 */
public final class PaimonTables {
  /** The Paimon database every Paimon table of Lakestream lives in, inside its own warehouse. */
  public static final String DATABASE = "lakestream";

  private PaimonTables() {}

  /** The Paimon warehouse of a table with this Iceberg location. */
  public static String warehouse(String icebergLocation) {
    String location =
        icebergLocation.endsWith("/")
            ? icebergLocation.substring(0, icebergLocation.length() - 1)
            : icebergLocation;
    return location + "/paimon";
  }

  /**
   * Checks that a table's Iceberg definition can be tiered into Paimon: only columns of types that
   * Paimon writes and describes to Iceberg the same way, only identity partition fields.
   *
   * @throws IllegalArgumentException naming the column or partition field that cannot be tiered
   */
  public static void check(org.apache.iceberg.Schema schema, List<PartitionField> partitionFields) {
    for (Types.NestedField column : schema.columns()) {
      paimonType(column);
    }
    for (PartitionField field : partitionFields) {
      if (!field.transform().isIdentity()) {
        throw new IllegalArgumentException(
            "Partition field "
                + field.name()
                + " uses transform "
                + field.transform()
                + "; a table tiered into Paimon can only be partitioned by columns (identity)");
      }
    }
  }

  /**
   * Opens the Paimon table of a streaming table, creating it (and its warehouse and database) from
   * the table's Iceberg metadata when it does not exist. Creating is idempotent: two processes that
   * create at once end with the same table.
   *
   * @param primaryKey whether the streaming table is a primary-key table
   * @throws TieringException when the Iceberg definition cannot be tiered into Paimon
   */
  public static FileStoreTable open(String name, TableMetadata metadata, boolean primaryKey) {
    try {
      check(metadata.schema(), metadata.spec().fields());
    } catch (IllegalArgumentException e) {
      throw new TieringException("Cannot tier " + name + " into Paimon: " + e.getMessage());
    }
    Options options = new Options();
    options.set("warehouse", warehouse(metadata.location()));
    try (Catalog catalog = CatalogFactory.createCatalog(context(options))) {
      Identifier identifier = Identifier.create(DATABASE, name);
      catalog.createDatabase(DATABASE, true);
      catalog.createTable(identifier, schema(metadata, primaryKey), true);
      return (FileStoreTable) catalog.getTable(identifier);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new TieringException("Cannot open the Paimon table of " + name + ": " + e, e);
    }
  }

  /**
   * A Paimon catalog context with an empty Hadoop configuration: Paimon's local and object-store
   * file IO do not need one, and without it Paimon searches the environment for one (and logs a
   * warning) every time.
   */
  public static CatalogContext context(Options options) {
    return CatalogContext.create(options, new org.apache.hadoop.conf.Configuration(false));
  }

  private static Schema schema(TableMetadata metadata, boolean primaryKey) {
    org.apache.iceberg.Schema iceberg = metadata.schema();
    List<DataField> fields = new ArrayList<>();
    for (Types.NestedField column : iceberg.columns()) {
      fields.add(new DataField(column.fieldId(), column.name(), paimonType(column), column.doc()));
    }
    List<String> partitionKeys = new ArrayList<>();
    for (PartitionField field : metadata.spec().fields()) {
      partitionKeys.add(iceberg.findColumnName(field.sourceId()));
    }
    List<String> primaryKeys = new ArrayList<>();
    Map<String, String> options = new HashMap<>();
    options.put("metadata.iceberg.storage", "table-location");
    options.put("metadata.iceberg.format-version", Integer.toString(metadata.formatVersion()));
    options.put("file.format", "parquet");
    if (primaryKey) {
      for (Types.NestedField column : iceberg.columns()) {
        if (iceberg.identifierFieldIds().contains(column.fieldId())) {
          primaryKeys.add(column.name());
        }
      }
      options.put(
          "bucket", metadata.properties().getOrDefault(LakestreamProperties.BUCKETS, "1").trim());
      options.put("merge-engine", "deduplicate");
    } else {
      options.put("bucket", "-1");
    }
    return new Schema(fields, partitionKeys, primaryKeys, options, null);
  }

  private static DataType paimonType(Types.NestedField column) {
    Type type = column.type();
    DataType paimon =
        switch (type.typeId()) {
          case BOOLEAN -> DataTypes.BOOLEAN();
          case INTEGER -> DataTypes.INT();
          case LONG -> DataTypes.BIGINT();
          case FLOAT -> DataTypes.FLOAT();
          case DOUBLE -> DataTypes.DOUBLE();
          case DECIMAL -> {
            Types.DecimalType decimal = (Types.DecimalType) type;
            yield DataTypes.DECIMAL(decimal.precision(), decimal.scale());
          }
          case DATE -> DataTypes.DATE();
          case STRING -> DataTypes.STRING();
          case BINARY -> DataTypes.BYTES();
          case TIMESTAMP ->
              ((Types.TimestampType) type).shouldAdjustToUTC()
                  ? DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)
                  : DataTypes.TIMESTAMP(6);
          default ->
              throw new IllegalArgumentException(
                  "Column "
                      + column.name()
                      + " has type "
                      + type
                      + ", which tiering into Paimon does not support (supported: boolean, int,"
                      + " long, float, double, decimal, date, string, binary, timestamp,"
                      + " timestamptz)");
        };
    return paimon.copy(column.isOptional());
  }
}
