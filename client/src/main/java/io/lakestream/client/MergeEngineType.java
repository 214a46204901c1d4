package io.lakestream.client;

import java.util.Optional;

/**
 * How a primary-key table merges a row written for a key that already has one, as written in its
 * {@link LakestreamProperties#MERGE_ENGINE} property. A value never changes meaning.
 */
public enum MergeEngineType {
  /** The newest row wins (the default). */
  LAST_ROW("last-row"),
  /** The first row of a key is kept; later ones are ignored. */
  FIRST_ROW("first-row"),
  /**
   * The row with the highest value of the version column ({@link
   * LakestreamProperties#MERGE_ENGINE_VERSION_COLUMN}) wins.
   */
  VERSIONED("versioned"),
  /**
   * Each non-key column is aggregated with its function ({@code
   * lakestream.fields.<column>.aggregate-function}, default {@code last_non_null_value}).
   */
  AGGREGATION("aggregation");

  private final String value;

  MergeEngineType(String value) {
    this.value = value;
  }

  /**
   * The engine's value in table properties ({@code last-row}, {@code first-row}, ...).
   *
   * @return the value
   */
  public String value() {
    return value;
  }

  /**
   * The engine of a property value; empty for null or any other value.
   *
   * @param value a {@link LakestreamProperties#MERGE_ENGINE} value, or null
   * @return the engine, or empty for an unknown value
   */
  public static Optional<MergeEngineType> fromValue(String value) {
    for (MergeEngineType engine : values()) {
      if (engine.value.equals(value)) {
        return Optional.of(engine);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return value;
  }
}
