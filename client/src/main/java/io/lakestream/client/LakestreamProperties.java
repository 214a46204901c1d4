package io.lakestream.client;

/**
 * The names of the {@code lakestream.*} table properties, declared once. What each value may be is
 * checked by the catalog when a table is created or changed.
 */
public final class LakestreamProperties {
  /** The prefix of every Lakestream table property. */
  public static final String PREFIX = "lakestream.";

  /** The table's {@link TableKind}; without it a table is a plain Iceberg table. */
  public static final String KIND = "lakestream.kind";

  /** How many buckets the table's stream has (1 to {@value #MAX_BUCKETS}; default 1). */
  public static final String BUCKETS = "lakestream.buckets";

  /** The most buckets a table may have. */
  public static final int MAX_BUCKETS = 1024;

  /** Comma-separated columns whose hash picks a row's bucket (round-robin without). */
  public static final String BUCKET_KEY = "lakestream.bucket-key";

  /** The merge engine of a primary-key table: one of {@link MergeEngineType}'s values. */
  public static final String MERGE_ENGINE = "lakestream.merge-engine";

  /** The version column of a primary-key table with the versioned merge engine. */
  public static final String MERGE_ENGINE_VERSION_COLUMN = "lakestream.merge-engine.version-column";

  /** The prefix of per-column properties ({@code lakestream.fields.<column>.<option>}). */
  public static final String FIELDS_PREFIX = "lakestream.fields.";

  /**
   * The per-column option ({@code lakestream.fields.<column>.aggregate-function}) that names the
   * aggregate function of a column of a primary-key table with the aggregation merge engine.
   */
  public static final String AGGREGATE_FUNCTION = "aggregate-function";

  /**
   * The per-column option ({@code lakestream.fields.<column>.listagg-delimiter}) that sets the
   * separator of a {@code listagg} column (default {@code ,}).
   */
  public static final String LISTAGG_DELIMITER = "listagg-delimiter";

  /** How often the table is tiered into the lake: a duration such as {@code 30s} or {@code 5m}. */
  public static final String TIERING_INTERVAL = "lakestream.tiering.interval";

  /**
   * How long the table's log keeps rows, a duration such as {@code 12h} or {@code 7d}; the server's
   * {@code log.retention} when not set. Rows not yet tiered are kept regardless.
   */
  public static final String LOG_RETENTION = "lakestream.log.retention";

  /** After how many delete files a tiered primary-key table is compacted. */
  public static final String TIERING_COMPACTION_DELETE_FILES =
      "lakestream.tiering.compaction.delete-files";

  /** After how many small files a tiered table is compacted. */
  public static final String TIERING_COMPACTION_SMALL_FILES =
      "lakestream.tiering.compaction.small-files";

  /** The lake format the table is tiered into: {@code iceberg} (default) or {@code paimon}. */
  public static final String LAKE_FORMAT = "lakestream.lake-format";

  /**
   * The name of the per-column property {@code lakestream.fields.<column>.<option>}.
   *
   * @param column the column's name
   * @param option {@link #AGGREGATE_FUNCTION} or {@link #LISTAGG_DELIMITER}
   * @return the property name
   */
  public static String fieldProperty(String column, String option) {
    return FIELDS_PREFIX + column + "." + option;
  }

  private LakestreamProperties() {}
}
