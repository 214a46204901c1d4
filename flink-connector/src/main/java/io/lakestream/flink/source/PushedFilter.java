package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.LogScanner;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.ColumnPredicate;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * A query filter of the form {@code column op literal} (or a null test) that the source passes on:
 * to the server, which skips log batches whose statistics rule out every row, and to Iceberg's
 * source, which skips lake files. Both only skip whole batches or files, so Flink still applies the
 * query's filters to every row; this only saves reading.
 *
 * @param column the column's name (resolved to the table's current column when the read starts)
 * @param literal a Long, Double, Boolean, String or BigDecimal; null for the null tests
 */
record PushedFilter(String column, ColumnPredicate.Op op, Object literal) implements Serializable {
  PushedFilter {
    requireNonNull(column, "column is null");
    requireNonNull(op, "op is null");
  }

  /** The filter a Flink expression is, if it is one the source can pass on. */
  static Optional<PushedFilter> of(ResolvedExpression expression) {
    if (!(expression instanceof CallExpression call)) {
      return Optional.empty();
    }
    FunctionDefinition function = call.getFunctionDefinition();
    List<ResolvedExpression> args = call.getResolvedChildren();
    if (args.size() == 1 && args.get(0) instanceof FieldReferenceExpression field) {
      if (function == BuiltInFunctionDefinitions.IS_NULL) {
        return Optional.of(new PushedFilter(field.getName(), ColumnPredicate.Op.IS_NULL, null));
      }
      if (function == BuiltInFunctionDefinitions.IS_NOT_NULL) {
        return Optional.of(new PushedFilter(field.getName(), ColumnPredicate.Op.IS_NOT_NULL, null));
      }
      return Optional.empty();
    }
    if (args.size() != 2) {
      return Optional.empty();
    }
    ColumnPredicate.Op op = comparison(function);
    if (op == null) {
      return Optional.empty();
    }
    if (args.get(0) instanceof FieldReferenceExpression field
        && args.get(1) instanceof ValueLiteralExpression literal) {
      return literal(field, literal).map(value -> new PushedFilter(field.getName(), op, value));
    }
    if (args.get(1) instanceof FieldReferenceExpression field
        && args.get(0) instanceof ValueLiteralExpression literal) {
      ColumnPredicate.Op flipped = flip(op);
      return literal(field, literal)
          .map(value -> new PushedFilter(field.getName(), flipped, value));
    }
    return Optional.empty();
  }

  private static ColumnPredicate.Op comparison(FunctionDefinition function) {
    if (function == BuiltInFunctionDefinitions.EQUALS) {
      return ColumnPredicate.Op.EQ;
    }
    if (function == BuiltInFunctionDefinitions.LESS_THAN) {
      return ColumnPredicate.Op.LT;
    }
    if (function == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
      return ColumnPredicate.Op.LT_EQ;
    }
    if (function == BuiltInFunctionDefinitions.GREATER_THAN) {
      return ColumnPredicate.Op.GT;
    }
    if (function == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
      return ColumnPredicate.Op.GT_EQ;
    }
    return null;
  }

  private static ColumnPredicate.Op flip(ColumnPredicate.Op op) {
    return switch (op) {
      case LT -> ColumnPredicate.Op.GT;
      case LT_EQ -> ColumnPredicate.Op.GT_EQ;
      case GT -> ColumnPredicate.Op.LT;
      case GT_EQ -> ColumnPredicate.Op.LT_EQ;
      default -> op;
    };
  }

  /**
   * The literal as the value the column's statistics compare with, when the column and the literal
   * are of one kind: integers, floating point, strings, booleans or decimals. Dates, times,
   * timestamps and binaries are not passed on.
   */
  private static Optional<Object> literal(
      FieldReferenceExpression field, ValueLiteralExpression literal) {
    LogicalType column = field.getOutputDataType().getLogicalType();
    LogicalType type = literal.getOutputDataType().getLogicalType();
    if (literal.isNull()) {
      return Optional.empty();
    }
    if (column.is(LogicalTypeFamily.INTEGER_NUMERIC)
        && type.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
      return literal.getValueAs(Number.class).map(Number::longValue);
    }
    if (column.is(LogicalTypeFamily.APPROXIMATE_NUMERIC)
        && type.is(LogicalTypeFamily.APPROXIMATE_NUMERIC)) {
      return literal.getValueAs(Number.class).map(Number::doubleValue);
    }
    if (column.is(LogicalTypeFamily.CHARACTER_STRING)
        && type.is(LogicalTypeFamily.CHARACTER_STRING)) {
      return literal.getValueAs(String.class).map(value -> value);
    }
    if (column.is(org.apache.flink.table.types.logical.LogicalTypeRoot.BOOLEAN)
        && type.is(org.apache.flink.table.types.logical.LogicalTypeRoot.BOOLEAN)) {
      return literal.getValueAs(Boolean.class).map(value -> value);
    }
    if (column.is(org.apache.flink.table.types.logical.LogicalTypeRoot.DECIMAL)
        && type.is(org.apache.flink.table.types.logical.LogicalTypeRoot.DECIMAL)) {
      return literal.getValueAs(BigDecimal.class).map(value -> value);
    }
    return Optional.empty();
  }

  /**
   * The server-side filter of these filters over a table whose current schema is {@code schema}.
   */
  static BatchFilter batchFilter(List<PushedFilter> filters, Schema schema) {
    List<ColumnPredicate> predicates = new ArrayList<>();
    for (PushedFilter filter : filters) {
      int column = LogScanner.indexOf(schema, filter.column());
      if (column >= 0) {
        predicates.add(new ColumnPredicate(column, filter.op(), filter.literal()));
      }
    }
    return new BatchFilter(predicates);
  }

  /** This filter as an Iceberg expression, for lake file pruning. */
  Expression toIceberg() {
    return switch (op) {
      case EQ -> Expressions.equal(column, literal);
      case LT -> Expressions.lessThan(column, literal);
      case LT_EQ -> Expressions.lessThanOrEqual(column, literal);
      case GT -> Expressions.greaterThan(column, literal);
      case GT_EQ -> Expressions.greaterThanOrEqual(column, literal);
      case IS_NULL -> Expressions.isNull(column);
      case IS_NOT_NULL -> Expressions.notNull(column);
    };
  }

  @Override
  public String toString() {
    return column + " " + op + (literal == null ? "" : " " + literal);
  }
}
