package io.lakestream.trino.tail;

import io.trino.plugin.iceberg.IcebergColumnHandle;

/** Which of the Iceberg connector's column handles are a streaming table's own columns. */
public final class TailColumns {
  private TailColumns() {}

  /**
   * Whether the column is one of the table's top-level columns, whose values log rows carry; the
   * others ({@code $path}, {@code $file_modified_time}, row ids, ...) describe lake files and are
   * null for rows read from the log.
   */
  public static boolean isTableColumn(IcebergColumnHandle column) {
    return column.isBaseColumn()
        && !column.isRowIdColumn()
        && !column.isMergeRowIdColumn()
        && !column.isRowPositionColumn()
        && !column.isPathColumn()
        && !column.isFileModifiedTimeColumn()
        && !column.isPartitionColumn()
        && !column.isIsDeletedColumn()
        && !column.isLastUpdatedSequenceNumberColumn();
  }
}
