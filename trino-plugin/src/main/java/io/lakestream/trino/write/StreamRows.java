package io.lakestream.trino.write;

import io.lakestream.trino.TrinoValues;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.spi.Page;
import io.trino.spi.type.DateType;
import io.trino.spi.type.Type;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Turns positions of Trino pages into the rows the stream client writes: a value per column of the
 * stream's schema, in its order, converted by {@link TrinoValues}; a stream column the pages do not
 * carry is null. Stateless once built; thread safe.
 */
final class StreamRows {
  private final int[] channels; // per stream column, its page channel or -1
  private final Type[] types;

  StreamRows(Schema streamSchema, List<IcebergColumnHandle> pageColumns) {
    List<Field> fields = streamSchema.getFields();
    channels = new int[fields.size()];
    types = new Type[fields.size()];
    List<String> names = new ArrayList<>();
    pageColumns.forEach(column -> names.add(column.getName()));
    for (int i = 0; i < fields.size(); i++) {
      channels[i] = names.indexOf(fields.get(i).getName());
      types[i] = channels[i] < 0 ? null : pageColumns.get(channels[i]).getType();
    }
  }

  /** The stream row of one position of a page. */
  Object[] row(Page page, int position) {
    Object[] values = new Object[channels.length];
    for (int i = 0; i < channels.length; i++) {
      if (channels[i] >= 0) {
        values[i] =
            value(types[i], TrinoValues.read(types[i], page.getBlock(channels[i]), position));
      }
    }
    return values;
  }

  /** A client value as the writer takes it: dates as {@link LocalDate}. */
  static Object value(Type type, Object value) {
    if (value != null && type instanceof DateType) {
      return LocalDate.ofEpochDay((Integer) value);
    }
    return value;
  }
}
