package io.lakestream.trino.tail;

import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.ColumnPredicate;
import io.lakestream.trino.TrinoValues;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeUtils;
import io.trino.spi.type.UuidType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The {@link BatchFilter} a log-tail read sends with its fetches so that the server skips batches
 * whose statistics rule out every row of a predicate: per column of the predicate, the span of its
 * domain ({@code low <= c AND c <= high}, or {@code c = v} for one value) and the null tests a
 * domain of only nulls or of only non-nulls asks for. The span is weaker than a domain of several
 * ranges (an {@code IN} list) and a domain that also admits nulls gives no predicate, because a
 * filter is a conjunction; either way the filter only prunes, and rows are still filtered by the
 * reader. Only for log tables: skipping a primary-key table's changes by value would lose the
 * change that moved a key out of the predicate.
 */
public final class TailBatchFilter {
  private TailBatchFilter() {}

  /**
   * @param predicate what the rows must satisfy
   * @param schema the stream's current Arrow schema, whose column indexes the filter names
   */
  public static BatchFilter of(TupleDomain<IcebergColumnHandle> predicate, Schema schema) {
    if (predicate.getDomains().isEmpty()) {
      return BatchFilter.MATCH_ALL; // none: the read returns nothing anyway
    }
    List<Field> fields = schema.getFields();
    List<ColumnPredicate> predicates = new ArrayList<>();
    for (Map.Entry<IcebergColumnHandle, Domain> entry : predicate.getDomains().get().entrySet()) {
      IcebergColumnHandle column = entry.getKey();
      if (!TailColumns.isTableColumn(column)) {
        continue;
      }
      int index = -1;
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).getName().equals(column.getName())) {
          index = i;
        }
      }
      if (index >= 0) {
        add(predicates, index, column.getType(), entry.getValue());
      }
    }
    // A predicate the stream's column type cannot be compared with (which the server would refuse
    // the whole fetch for) only costs pruning: leave it out.
    return new BatchFilter(
        predicates.stream().filter(one -> fits(BatchFilter.of(one), schema)).toList());
  }

  private static boolean fits(BatchFilter filter, Schema schema) {
    try {
      filter.validate(schema);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static void add(List<ColumnPredicate> predicates, int column, Type type, Domain domain) {
    if (domain.isAll() || domain.isNone()) {
      return;
    }
    if (domain.isOnlyNull()) {
      predicates.add(ColumnPredicate.isNull(column));
      return;
    }
    if (domain.isNullAllowed() || !TrinoValues.isSupported(type)) {
      return;
    }
    if (domain.getValues().isAll()) {
      predicates.add(ColumnPredicate.isNotNull(column));
      return;
    }
    Range span = domain.getValues().getRanges().getSpan();
    if (span.isSingleValue()) {
      predicates.add(ColumnPredicate.equal(column, literal(type, span.getSingleValue())));
      return;
    }
    if (type instanceof UuidType) {
      return; // Trino orders uuids otherwise than their bytes compare
    }
    if (!span.isLowUnbounded()) {
      Object low = literal(type, span.getLowBoundedValue());
      predicates.add(
          span.isLowInclusive()
              ? ColumnPredicate.greaterThanOrEqual(column, low)
              : ColumnPredicate.greaterThan(column, low));
    }
    if (!span.isHighUnbounded()) {
      Object high = literal(type, span.getHighBoundedValue());
      predicates.add(
          span.isHighInclusive()
              ? ColumnPredicate.lessThanOrEqual(column, high)
              : ColumnPredicate.lessThan(column, high));
    }
  }

  /** A Trino value as the client writes it, which is how the log's statistics hold it. */
  private static Object literal(Type type, Object value) {
    return TrinoValues.read(type, TypeUtils.writeNativeValue(type, value), 0);
  }
}
