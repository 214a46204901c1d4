package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import java.util.OptionalLong;

/**
 * A log table's {@code count(*)} answered without reading rows ({@link
 * LakestreamMetadata#applyAggregation}): the pinned lake snapshot's record count, exact because the
 * snapshot has no delete files, plus the sizes of the union read's log ranges, which the split
 * manager plans as it would for a scan and hands to one {@link Split}. The scan of this handle
 * returns one row with the count in its one column ({@link Column}).
 *
 * @param schema the table's schema (namespace)
 * @param table the table's name
 * @param snapshotId the lake snapshot the table was resolved at (empty: an empty lake table)
 * @param lakeRecords the records of that snapshot (0 without one)
 */
public record ExactCountHandle(
    String schema, String table, OptionalLong snapshotId, long lakeRecords)
    implements ConnectorTableHandle {
  /** The one column of the scan. */
  public static final Column COLUMN = new Column("count");

  public ExactCountHandle {
    requireNonNull(schema, "schema is null");
    requireNonNull(table, "table is null");
    requireNonNull(snapshotId, "snapshotId is null");
    if (lakeRecords < 0) {
      throw new IllegalArgumentException("Negative lake record count: " + lakeRecords);
    }
  }

  public SchemaTableName schemaTableName() {
    return new SchemaTableName(schema, table);
  }

  @Override
  public String toString() {
    return schema + "." + table + " exact count (lake snapshot " + snapshotId + " + log ranges)";
  }

  /** The count's column. */
  public record Column(String name) implements ColumnHandle {
    public Column {
      requireNonNull(name, "name is null");
    }
  }

  /** The one split of the scan: the count, planned when the splits were asked for. */
  public record Split(long count) implements ConnectorSplit {
    private static final long INSTANCE_SIZE = 16;

    @Override
    public long getRetainedSizeInBytes() {
      return INSTANCE_SIZE;
    }
  }
}
