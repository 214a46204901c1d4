package io.lakestream.store.kv;

import java.math.BigDecimal;
import java.math.RoundingMode;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * {@code aggregation}: each non-key column combines the stored value with the written one through
 * its {@link AggregateFunction}; a partial update aggregates only the columns it names. A new key's
 * row is each function applied to "no value" and the written one; a delete removes the row.
 */
final class AggregationMergeEngine implements MergeEngine {
  /** The aggregate of one non-key column. */
  record ColumnAggregate(String name, Type type, AggregateFunction function, String delimiter) {}

  /** Per column; null for key columns. */
  private final ColumnAggregate[] aggregates;

  AggregationMergeEngine(ColumnAggregate[] aggregates) {
    this.aggregates = aggregates.clone();
  }

  @Override
  public Object[] upsert(Object[] current, Mutation mutation) {
    Object[] input = mutation.row();
    Object[] merged = current == null ? new Object[input.length] : current.clone();
    for (int position = 0; position < input.length; position++) {
      ColumnAggregate aggregate = aggregates[position];
      if (aggregate == null) {
        merged[position] = input[position];
      } else if (mutation.writes(position)) {
        merged[position] =
            aggregate(
                aggregate,
                current == null ? null : current[position],
                input[position],
                current == null);
      }
    }
    return merged;
  }

  @Override
  public Object[] delete(Object[] current, Mutation mutation) {
    return null;
  }

  private static Object aggregate(
      ColumnAggregate aggregate, Object accumulator, Object input, boolean first) {
    switch (aggregate.function()) {
      case FIRST_VALUE:
        return first ? input : accumulator;
      case FIRST_NON_NULL_VALUE:
        return accumulator != null ? accumulator : input;
      case LAST_VALUE:
        return input;
      case LAST_NON_NULL_VALUE:
        return input != null ? input : accumulator;
      case COUNT:
        long count =
            (accumulator == null ? 0 : ((Number) accumulator).longValue())
                + (input == null ? 0 : 1);
        if (aggregate.type().typeId() == Type.TypeID.INTEGER) {
          if (count > Integer.MAX_VALUE) {
            throw overflow(aggregate);
          }
          return (int) count;
        }
        return count;
      default:
        break;
    }
    if (input == null) {
      return accumulator;
    }
    if (accumulator == null) {
      return input;
    }
    return switch (aggregate.function()) {
      case SUM -> sum(aggregate, accumulator, input);
      case PRODUCT -> product(aggregate, accumulator, input);
      case MIN -> MergeEngines.compare(input, accumulator) < 0 ? input : accumulator;
      case MAX -> MergeEngines.compare(input, accumulator) > 0 ? input : accumulator;
      case LISTAGG -> accumulator + aggregate.delimiter() + input;
      case BOOL_AND -> (Boolean) accumulator && (Boolean) input;
      case BOOL_OR -> (Boolean) accumulator || (Boolean) input;
      default -> throw new IllegalStateException("Unhandled " + aggregate.function());
    };
  }

  private static Object sum(ColumnAggregate aggregate, Object left, Object right) {
    try {
      return switch (aggregate.type().typeId()) {
        case INTEGER -> Math.addExact((Integer) left, (Integer) right);
        case LONG -> Math.addExact((Long) left, (Long) right);
        case FLOAT -> (Float) left + (Float) right;
        case DOUBLE -> (Double) left + (Double) right;
        default -> fit(aggregate, ((BigDecimal) left).add((BigDecimal) right));
      };
    } catch (ArithmeticException e) {
      throw overflow(aggregate);
    }
  }

  private static Object product(ColumnAggregate aggregate, Object left, Object right) {
    try {
      return switch (aggregate.type().typeId()) {
        case INTEGER -> Math.multiplyExact((Integer) left, (Integer) right);
        case LONG -> Math.multiplyExact((Long) left, (Long) right);
        case FLOAT -> (Float) left * (Float) right;
        case DOUBLE -> (Double) left * (Double) right;
        default -> fit(aggregate, ((BigDecimal) left).multiply((BigDecimal) right));
      };
    } catch (ArithmeticException e) {
      throw overflow(aggregate);
    }
  }

  private static BigDecimal fit(ColumnAggregate aggregate, BigDecimal value) {
    Types.DecimalType type = (Types.DecimalType) aggregate.type();
    BigDecimal scaled = value.setScale(type.scale(), RoundingMode.HALF_UP);
    if (scaled.precision() > type.precision()) {
      throw overflow(aggregate);
    }
    return scaled;
  }

  private static InvalidMutationException overflow(ColumnAggregate aggregate) {
    return new InvalidMutationException(
        aggregate.function().functionName()
            + " of column '"
            + aggregate.name()
            + "' overflows its type "
            + aggregate.type());
  }
}
