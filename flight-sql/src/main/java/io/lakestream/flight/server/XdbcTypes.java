package io.lakestream.flight.server;

import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.List;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;

/**
 * The SQL types a query over Lakestream tables can return or take, as Flight SQL's XDBC type info
 * ({@code CommandGetXdbcTypeInfo}, behind JDBC's {@code DatabaseMetaData.getTypeInfo()}): one row
 * per type of an Iceberg column as the SQL engine names it, ordered by JDBC type code as JDBC asks.
 */
final class XdbcTypes {
  /** What a row of the type info says about a type. */
  record XdbcType(
      String name,
      int jdbcType,
      Integer columnSize,
      String literalPrefix,
      String literalSuffix,
      List<String> createParams,
      boolean caseSensitive,
      boolean searchableLike,
      Boolean unsigned,
      boolean fixedPrecisionScale,
      Integer minimumScale,
      Integer maximumScale,
      Integer radix) {}

  /** Every type, by JDBC type code (then name). */
  static final List<XdbcType> TYPES =
      List.of(
          numeric("BIGINT", Types.BIGINT, 19),
          literal("BLOB", Types.VARBINARY, null, "'", "'::BLOB"),
          new XdbcType(
              "DECIMAL",
              Types.DECIMAL,
              38,
              null,
              null,
              List.of("precision", "scale"),
              false,
              false,
              false,
              true,
              0,
              38,
              10),
          numeric("INTEGER", Types.INTEGER, 10),
          approximate("FLOAT", Types.FLOAT, 24),
          approximate("DOUBLE", Types.DOUBLE, 53),
          new XdbcType(
              "VARCHAR",
              Types.VARCHAR,
              null,
              "'",
              "'",
              null,
              true,
              true,
              null,
              false,
              null,
              null,
              null),
          literal("BOOLEAN", Types.BOOLEAN, 1, null, null),
          literal("DATE", Types.DATE, 10, "DATE '", "'"),
          temporal("TIME", Types.TIME, 15, "TIME '"),
          temporal("TIMESTAMP", Types.TIMESTAMP, 26, "TIMESTAMP '"),
          temporal("TIMESTAMP WITH TIME ZONE", Types.TIMESTAMP_WITH_TIMEZONE, 32, "TIMESTAMPTZ '"));

  private XdbcTypes() {}

  /** A binary floating-point type of {@code bits} bits of precision. */
  private static XdbcType approximate(String name, int jdbcType, int bits) {
    return new XdbcType(
        name, jdbcType, bits, null, null, null, false, false, false, false, null, null, 2);
  }

  /** A date-time type with microseconds, written as {@code prefix} and the value and a quote. */
  private static XdbcType temporal(String name, int jdbcType, int size, String prefix) {
    return new XdbcType(
        name, jdbcType, size, prefix, "'", null, false, false, null, false, 6, 6, null);
  }

  /**
   * A type without scale or sign, written as {@code prefix}, the value and {@code suffix}; no size
   * when null.
   */
  private static XdbcType literal(
      String name, int jdbcType, Integer size, String prefix, String suffix) {
    return new XdbcType(
        name, jdbcType, size, prefix, suffix, null, false, false, null, false, null, null, null);
  }

  private static XdbcType numeric(String name, int jdbcType, int digits) {
    return new XdbcType(
        name, jdbcType, digits, null, null, null, false, false, false, true, 0, 0, 10);
  }

  /**
   * The type info rows, of all types or of one JDBC type code.
   *
   * @param dataType the JDBC type code asked for, or null for every type
   */
  static VectorSchemaRoot rows(BufferAllocator allocator, Integer dataType) {
    List<XdbcType> types =
        TYPES.stream()
            .filter(type -> dataType == null || type.jdbcType() == dataType)
            .sorted(
                java.util.Comparator.comparingInt(XdbcType::jdbcType).thenComparing(XdbcType::name))
            .toList();
    VectorSchemaRoot root = VectorSchemaRoot.create(Schemas.GET_TYPE_INFO_SCHEMA, allocator);
    try {
      root.allocateNew();
      for (int row = 0; row < types.size(); row++) {
        XdbcType type = types.get(row);
        string(root, "type_name", row, type.name());
        integer(root, "data_type", row, type.jdbcType());
        integer(root, "column_size", row, type.columnSize());
        string(root, "literal_prefix", row, type.literalPrefix());
        string(root, "literal_suffix", row, type.literalSuffix());
        list(root, "create_params", row, type.createParams());
        integer(root, "nullable", row, java.sql.DatabaseMetaData.typeNullable);
        bool(root, "case_sensitive", row, type.caseSensitive());
        integer(
            root,
            "searchable",
            row,
            type.searchableLike()
                ? java.sql.DatabaseMetaData.typeSearchable
                : java.sql.DatabaseMetaData.typePredBasic);
        bool(root, "unsigned_attribute", row, type.unsigned());
        bool(root, "fixed_prec_scale", row, type.fixedPrecisionScale());
        bool(root, "auto_increment", row, type.unsigned() == null ? null : false);
        string(root, "local_type_name", row, type.name());
        integer(root, "minimum_scale", row, type.minimumScale());
        integer(root, "maximum_scale", row, type.maximumScale());
        integer(root, "sql_data_type", row, type.jdbcType());
        integer(root, "datetime_subcode", row, null);
        integer(root, "num_prec_radix", row, type.radix());
        integer(root, "interval_precision", row, null);
      }
      root.setRowCount(types.size());
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  private static FieldVector vector(VectorSchemaRoot root, String name) {
    FieldVector vector = root.getVector(name);
    if (vector == null) {
      throw new IllegalStateException("The type info schema has no column " + name);
    }
    return vector;
  }

  private static void string(VectorSchemaRoot root, String column, int row, String value) {
    VarCharVector vector = (VarCharVector) vector(root, column);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void integer(VectorSchemaRoot root, String column, int row, Integer value) {
    IntVector vector = (IntVector) vector(root, column);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value);
    }
  }

  private static void bool(VectorSchemaRoot root, String column, int row, Boolean value) {
    BitVector vector = (BitVector) vector(root, column);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value ? 1 : 0);
    }
  }

  private static void list(VectorSchemaRoot root, String column, int row, List<String> values) {
    ListVector vector = (ListVector) vector(root, column);
    if (values == null) {
      vector.setNull(row);
      return;
    }
    UnionListWriter writer = vector.getWriter();
    writer.setPosition(row);
    writer.startList();
    for (String value : values) {
      byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
      try (org.apache.arrow.memory.ArrowBuf buffer = vector.getAllocator().buffer(bytes.length)) {
        buffer.setBytes(0, bytes);
        writer.varChar().writeVarChar(0, bytes.length, buffer);
      }
    }
    writer.endList();
  }
}
