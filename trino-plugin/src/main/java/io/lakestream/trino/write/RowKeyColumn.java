package io.lakestream.trino.write;

import io.trino.plugin.iceberg.ColumnIdentity;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.plugin.iceberg.IcebergTableHandle;
import io.trino.plugin.iceberg.IcebergUtil;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.type.RowType;
import io.trino.spi.type.TypeManager;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/**
 * The row id of a primary-key table's {@code DELETE}, {@code UPDATE} and {@code MERGE}: its primary
 * key, as a {@code ROW} of the key columns' values. It is an {@link IcebergColumnHandle} so that
 * the Iceberg connector's planning (projection, filters) passes it through; the page sources fill
 * it from the key columns for lake and log-tail splits alike ({@code RowKeyPageSource}), never the
 * Iceberg connector's page source.
 */
public final class RowKeyColumn {
  /** A field id no Iceberg schema or Trino metadata column uses. */
  static final int ID = Integer.MIN_VALUE + 0x0711;

  static final String NAME = "$lakestream_row_key";

  private RowKeyColumn() {}

  /** The row-id column of a table with these key columns. */
  public static IcebergColumnHandle of(List<IcebergColumnHandle> keyColumns) {
    RowType type =
        RowType.from(
            keyColumns.stream()
                .map(column -> RowType.field(column.getName(), column.getType()))
                .toList());
    return new IcebergColumnHandle(
        new ColumnIdentity(ID, NAME, ColumnIdentity.TypeCategory.PRIMITIVE, List.of()),
        type,
        List.of(),
        type,
        false,
        Optional.empty());
  }

  /** A primary-key table's key columns (its schema's identifier fields), in schema order. */
  public static List<IcebergColumnHandle> keyColumns(
      IcebergTableHandle table, TypeManager typeManager) {
    Schema schema = SchemaParser.fromJson(table.getTableSchemaJson());
    return schema.columns().stream()
        .filter(field -> schema.identifierFieldIds().contains(field.fieldId()))
        .map(field -> IcebergUtil.getColumnHandle(field, typeManager))
        .toList();
  }

  /** Whether a column is a row-id column of this class. */
  public static boolean is(ColumnHandle column) {
    return column instanceof IcebergColumnHandle handle && handle.getId() == ID;
  }
}
