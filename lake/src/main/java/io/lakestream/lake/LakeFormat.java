package io.lakestream.lake;

import io.lakestream.client.LakestreamProperties;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The table format a streaming table tiers into, chosen per table with the table property {@value
 * #PROPERTY} when the table is created; it cannot change afterwards (the lake table of one format
 * is not the other's).
 *
 * <ul>
 *   <li>{@link #ICEBERG} (the default): tiering commits Iceberg data (and delete) files into the
 *       table's own Iceberg metadata (the tiering module's {@code IcebergTableTiering});
 *   <li>{@link #PAIMON}: tiering commits into an Apache Paimon table under the table's location and
 *       points the catalog entry at the Iceberg metadata Paimon generates (the lake-paimon module's
 *       {@code PaimonTableTiering}).
 * </ul>
 */
public enum LakeFormat {
  ICEBERG,
  PAIMON;

  /** The table property that selects the format. */
  public static final String PROPERTY = LakestreamProperties.LAKE_FORMAT;

  /** The property's value for this format. */
  public String value() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The format a table's properties select: {@value #PROPERTY}, or {@link #ICEBERG} when it is not
   * set.
   *
   * @throws IllegalArgumentException naming the property, the value and the allowed values
   */
  public static LakeFormat of(Map<String, String> tableProperties) {
    String raw = tableProperties.get(PROPERTY);
    if (raw == null) {
      return ICEBERG;
    }
    for (LakeFormat format : values()) {
      if (format.value().equals(raw.trim())) {
        return format;
      }
    }
    throw new IllegalArgumentException(
        "Invalid "
            + PROPERTY
            + " '"
            + raw
            + "': expected one of "
            + Arrays.stream(values()).map(LakeFormat::value).collect(Collectors.joining(", ")));
  }
}
