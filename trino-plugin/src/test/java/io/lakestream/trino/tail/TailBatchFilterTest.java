package io.lakestream.trino.tail;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.slice.Slices;
import io.lakestream.client.arrow.BatchFilter;
import io.lakestream.client.arrow.ColumnPredicate;
import io.trino.plugin.iceberg.IcebergColumnHandle;
import io.trino.plugin.iceberg.IcebergUtil;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.UuidType;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The batch filters a log-tail read sends for a table handle's predicate: which domains become
 * which predicates, with literals in the representation of the log's statistics (checked by {@link
 * BatchFilter#validate}, as the server checks them) and column indexes of the stream's schema.
 */
class TailBatchFilterTest {
  // The stream's Arrow schema: the filter names columns by their index here.
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.nullable("id", new ArrowType.Int(64, true)),
              Field.nullable("name", ArrowType.Utf8.INSTANCE),
              Field.nullable("amount", new ArrowType.Decimal(10, 2, 128)),
              Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
              Field.nullable("ratio", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
              Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
              Field.nullable("u", new ArrowType.FixedSizeBinary(16))));

  private static final IcebergColumnHandle ID = column(1, "id", Types.LongType.get());
  private static final IcebergColumnHandle NAME = column(2, "name", Types.StringType.get());
  private static final IcebergColumnHandle AMOUNT =
      column(3, "amount", Types.DecimalType.of(10, 2));
  private static final IcebergColumnHandle TS = column(4, "ts", Types.TimestampType.withZone());
  private static final IcebergColumnHandle RATIO = column(5, "ratio", Types.FloatType.get());
  private static final IcebergColumnHandle DAY = column(6, "day", Types.DateType.get());
  private static final IcebergColumnHandle U = column(7, "u", Types.UUIDType.get());
  private static final IcebergColumnHandle MISSING = column(8, "missing", Types.LongType.get());

  // A column the lake schema types otherwise than the stream (bigint here, a string there).
  private static final IcebergColumnHandle NAME_AS_BIGINT = column(2, "name", Types.LongType.get());

  private static IcebergColumnHandle column(
      int id, String name, org.apache.iceberg.types.Type type) {
    return IcebergUtil.getColumnHandle(
        Types.NestedField.optional(id, name, type), TESTING_TYPE_MANAGER);
  }

  private static BatchFilter filter(IcebergColumnHandle column, Domain domain) {
    BatchFilter filter =
        TailBatchFilter.of(TupleDomain.withColumnDomains(Map.of(column, domain)), SCHEMA);
    filter.validate(SCHEMA);
    return filter;
  }

  @Test
  void rangesBecomeBoundsOfTheSchemasColumn() {
    assertThat(
            filter(
                ID,
                Domain.create(
                    ValueSet.ofRanges(Range.range(BIGINT, 10L, true, 20L, false)), false)))
        .isEqualTo(
            BatchFilter.of(
                ColumnPredicate.greaterThanOrEqual(0, 10L), ColumnPredicate.lessThan(0, 20L)));
    assertThat(filter(ID, Domain.create(ValueSet.ofRanges(Range.greaterThan(BIGINT, 7L)), false)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.greaterThan(0, 7L)));
    assertThat(filter(ID, Domain.singleValue(BIGINT, 42L)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.equal(0, 42L)));
  }

  @Test
  void severalRangesBecomeTheirSpan() {
    assertThat(filter(ID, Domain.multipleValues(BIGINT, List.of(5L, 17L, 99L))))
        .isEqualTo(
            BatchFilter.of(
                ColumnPredicate.greaterThanOrEqual(0, 5L),
                ColumnPredicate.lessThanOrEqual(0, 99L)));
  }

  @Test
  void nullsBecomeNullTestsOrNothing() {
    assertThat(filter(ID, Domain.onlyNull(BIGINT)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.isNull(0)));
    assertThat(filter(ID, Domain.notNull(BIGINT)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.isNotNull(0)));
    // "id = 3 OR id IS NULL" is no conjunction of predicates: nothing is skipped for it.
    assertThat(filter(ID, Domain.create(ValueSet.ofRanges(Range.equal(BIGINT, 3L)), true)))
        .isEqualTo(BatchFilter.MATCH_ALL);
  }

  @Test
  void literalsAreInTheLogsRepresentation() {
    assertThat(filter(NAME, Domain.singleValue(VARCHAR, Slices.utf8Slice("bob"))))
        .isEqualTo(BatchFilter.of(ColumnPredicate.equal(1, "bob")));
    DecimalType decimal = DecimalType.createDecimalType(10, 2);
    assertThat(filter(AMOUNT, Domain.singleValue(decimal, 12_345L)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.equal(2, new BigDecimal("123.45"))));
    TimestampWithTimeZoneType timestamp =
        TimestampWithTimeZoneType.createTimestampWithTimeZoneType(6);
    LongTimestampWithTimeZone instant =
        LongTimestampWithTimeZone.fromEpochMillisAndFraction(
            1_700_000_000_123L, 456_000_000, TimeZoneKey.UTC_KEY);
    assertThat(
            filter(TS, Domain.create(ValueSet.ofRanges(Range.lessThan(timestamp, instant)), false)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.lessThan(3, 1_700_000_000_123_456L)));
    assertThat(
            filter(
                RATIO,
                Domain.create(
                    ValueSet.ofRanges(
                        Range.greaterThan(REAL, (long) Float.floatToRawIntBits(0.5f))),
                    false)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.greaterThan(4, 0.5d)));
    assertThat(filter(DAY, Domain.singleValue(DATE, 20_000L)))
        .isEqualTo(BatchFilter.of(ColumnPredicate.equal(5, 20_000L)));
  }

  @Test
  void uuidRangesAndColumnsTheStreamLacksGiveNoPredicate() {
    assertThat(
            filter(
                U,
                Domain.create(
                    ValueSet.ofRanges(
                        Range.greaterThan(UuidType.UUID, Slices.wrappedBuffer(new byte[16]))),
                    false)))
        .isEqualTo(BatchFilter.MATCH_ALL);
    assertThat(filter(MISSING, Domain.singleValue(BIGINT, 1L))).isEqualTo(BatchFilter.MATCH_ALL);
    assertThat(
            TailBatchFilter.of(
                TupleDomain.withColumnDomains(
                    Map.of(
                        NAME_AS_BIGINT,
                        Domain.singleValue(BIGINT, 1L),
                        ID,
                        Domain.singleValue(BIGINT, 2L))),
                SCHEMA))
        .as("the predicate the stream's column cannot be compared with is left out")
        .isEqualTo(BatchFilter.of(ColumnPredicate.equal(0, 2L)));
  }
}
