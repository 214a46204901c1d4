package io.lakestream.tiering;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The options of DuckDB's Parquet {@code COPY} for a table's data files ({@link DuckDbDataWriter}):
 * the Iceberg field ids of its columns, and its compression codec, level and row group size as the
 * table's properties name them (and as Iceberg's own writers read them).
 */
final class DuckDbParquetOptions {
  /** The ZSTD level of data files whose table names none: ZSTD's and Iceberg's usual level. */
  static final int DEFAULT_ZSTD_LEVEL = 3;

  private DuckDbParquetOptions() {}

  /** The {@code COPY} options, in parentheses, of data files of {@code columns} of the table. */
  static String copyOptions(Table table, List<Types.NestedField> columns) {
    StringBuilder ids = new StringBuilder("{");
    for (Types.NestedField column : columns) {
      if (ids.length() > 1) {
        ids.append(", ");
      }
      ids.append('\'')
          .append(column.name().replace("'", "''"))
          .append("': ")
          .append(column.fieldId());
    }
    ids.append('}');
    String compression = compression(table);
    return "(FORMAT parquet, COMPRESSION "
        + compression
        + (compression.equals("zstd") ? ", COMPRESSION_LEVEL " + zstdLevel(table.properties()) : "")
        + ", FIELD_IDS "
        + ids
        + ", ROW_GROUP_SIZE_BYTES "
        + PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT)
        + ")";
  }

  /**
   * The ZSTD level of a table's data files: its {@code write.parquet.compression-level} when that
   * is a level ZSTD has (1 to 22), else {@value #DEFAULT_ZSTD_LEVEL}, as Iceberg's own writers do.
   * A lower level encodes faster (level 1 about a third faster than 3 on poorly compressible
   * strings) for somewhat larger files.
   */
  static int zstdLevel(Map<String, String> tableProperties) {
    String level = tableProperties.get(TableProperties.PARQUET_COMPRESSION_LEVEL);
    if (level == null) {
      return DEFAULT_ZSTD_LEVEL;
    }
    try {
      int parsed = Integer.parseInt(level.trim());
      return parsed >= 1 && parsed <= 22 ? parsed : DEFAULT_ZSTD_LEVEL;
    } catch (NumberFormatException e) {
      return DEFAULT_ZSTD_LEVEL;
    }
  }

  /** The table's Parquet codec as DuckDB names it; ZSTD for one DuckDB does not write. */
  private static String compression(Table table) {
    String codec =
        table
            .properties()
            .getOrDefault(
                TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT)
            .toLowerCase(Locale.ROOT);
    return switch (codec) {
      case "uncompressed", "snappy", "gzip", "zstd", "lz4", "brotli" -> codec;
      case "lz4_raw" -> "lz4";
      default -> "zstd";
    };
  }
}
