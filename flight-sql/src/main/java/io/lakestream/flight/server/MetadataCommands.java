package io.lakestream.flight.server;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.query.FlightErrors;
import io.lakestream.flight.scan.LakestreamTables;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Types;

/**
 * The metadata commands of the Flight SQL endpoint: catalogs (warehouses), schemas (namespaces),
 * tables, table types, XDBC type info and primary keys, each listing only what the caller may read.
 * SqlInfo is answered by the producer's {@code SqlInfoBuilder}. Thread safe.
 */
final class MetadataCommands {
  private static final String TABLE_TYPE = "TABLE";

  private final LakestreamTables tables;
  private final FlightSqlAccess access;
  private final BufferAllocator allocator;

  MetadataCommands(LakestreamTables tables, FlightSqlAccess access, BufferAllocator allocator) {
    this.tables = requireNonNull(tables, "tables is null");
    this.access = requireNonNull(access, "access is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  /** Sends the catalogs: the warehouses. */
  void catalogs(ServerStreamListener listener) {
    send(
        listener,
        Schemas.GET_CATALOGS_SCHEMA,
        rows -> {
          for (String warehouse : tables.warehouses()) {
            rows.add(new Object[] {warehouse});
          }
        });
  }

  /** Sends the schemas: the one-level namespaces {@code principal} may read, filtered as asked. */
  void schemas(
      FlightSql.CommandGetDbSchemas command, String principal, ServerStreamListener listener) {
    Pattern schemas =
        LakestreamFlightSqlProducer.like(
            command.hasDbSchemaFilterPattern(), command.getDbSchemaFilterPattern());
    send(
        listener,
        Schemas.GET_SCHEMAS_SCHEMA,
        rows -> {
          for (String warehouse : warehouses(command.hasCatalog(), command.getCatalog())) {
            for (Namespace namespace : readable(principal, warehouse)) {
              if (schemas.matcher(namespace.toString()).matches()) {
                rows.add(new Object[] {warehouse, namespace.toString()});
              }
            }
          }
        });
  }

  /**
   * Sends the tables of the readable schemas, filtered as asked, with their Arrow schemas when
   * asked.
   */
  void tables(FlightSql.CommandGetTables command, String principal, ServerStreamListener listener) {
    Pattern schemas =
        LakestreamFlightSqlProducer.like(
            command.hasDbSchemaFilterPattern(), command.getDbSchemaFilterPattern());
    Pattern names =
        LakestreamFlightSqlProducer.like(
            command.hasTableNameFilterPattern(), command.getTableNameFilterPattern());
    boolean tablesWanted =
        command.getTableTypesCount() == 0 || command.getTableTypesList().contains(TABLE_TYPE);
    boolean withSchema = command.getIncludeSchema();
    send(
        listener,
        withSchema ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA,
        rows -> {
          if (!tablesWanted) {
            return;
          }
          for (String warehouse : warehouses(command.hasCatalog(), command.getCatalog())) {
            for (Namespace namespace : readable(principal, warehouse)) {
              if (!schemas.matcher(namespace.toString()).matches()) {
                continue;
              }
              for (TableIdentifier identifier : tables.tables(warehouse, namespace)) {
                if (!names.matcher(identifier.name()).matches()) {
                  continue;
                }
                if (!withSchema) {
                  rows.add(
                      new Object[] {
                        warehouse, namespace.toString(), identifier.name(), TABLE_TYPE
                      });
                  continue;
                }
                Table table;
                try {
                  table = tables.load(warehouse, identifier);
                } catch (NoSuchTableException e) {
                  continue; // dropped while listing
                }
                rows.add(
                    new Object[] {
                      warehouse,
                      namespace.toString(),
                      identifier.name(),
                      TABLE_TYPE,
                      io.lakestream.client.arrow.IcebergArrowSchemas.toArrowSchema(table.schema())
                          .serializeAsMessage()
                    });
              }
            }
          }
        });
  }

  /** Sends the table types: {@value #TABLE_TYPE} only. */
  void tableTypes(ServerStreamListener listener) {
    send(listener, Schemas.GET_TABLE_TYPES_SCHEMA, rows -> rows.add(new Object[] {TABLE_TYPE}));
  }

  /** Sends the XDBC type info ({@link XdbcTypes}), of one type when the command names one. */
  void typeInfo(FlightSql.CommandGetXdbcTypeInfo command, ServerStreamListener listener) {
    try (VectorSchemaRoot root =
        XdbcTypes.rows(allocator, command.hasDataType() ? command.getDataType() : null)) {
      listener.start(root);
      listener.putNext();
      listener.completed();
    } catch (RuntimeException e) {
      listener.error(FlightErrors.toFlight(e));
    }
  }

  /** Sends the primary key of a table {@code principal} may read: its identifier fields. */
  void primaryKeys(
      FlightSql.CommandGetPrimaryKeys command, String principal, ServerStreamListener listener) {
    try {
      String warehouse =
          tables.warehouse(command.hasCatalog() ? command.getCatalog() : "", command.getTable());
      Namespace namespace = Namespace.of(command.getDbSchema().split("\\."));
      access.checkRead(principal, warehouse, List.of(namespace.levels()));
      Table table = tables.load(warehouse, TableIdentifier.of(namespace, command.getTable()));
      org.apache.iceberg.Schema schema = table.schema();
      List<Types.NestedField> keys =
          schema.identifierFieldIds().stream().sorted().map(schema::findField).toList();
      send(
          listener,
          Schemas.GET_PRIMARY_KEYS_SCHEMA,
          rows -> {
            int sequence = 1;
            for (Types.NestedField key : keys) {
              rows.add(
                  new Object[] {
                    warehouse,
                    namespace.toString(),
                    command.getTable(),
                    key.name(),
                    sequence++,
                    null
                  });
            }
          });
    } catch (RuntimeException e) {
      listener.error(FlightErrors.toFlight(e));
    }
  }

  private List<String> warehouses(boolean filtered, String catalog) {
    if (!filtered) {
      return tables.warehouses();
    }
    return tables.warehouses().contains(catalog) ? List.of(catalog) : List.of();
  }

  /** The namespaces of a warehouse the principal may read, one level deep (what SQL can name). */
  private List<Namespace> readable(String principal, String warehouse) {
    List<Namespace> namespaces = new ArrayList<>();
    for (Namespace namespace : tables.namespaces(warehouse)) {
      if (namespace.length() != 1) {
        continue;
      }
      try {
        access.checkRead(principal, warehouse, List.of(namespace.levels()));
        namespaces.add(namespace);
      } catch (ForbiddenException e) {
        // not listed
      }
    }
    return namespaces;
  }

  /** The FlightInfo of a metadata command: one endpoint whose ticket is the command. */
  static FlightInfo info(Message command, FlightDescriptor descriptor, Schema schema) {
    return new FlightInfo(
        schema,
        descriptor,
        List.of(new FlightEndpoint(new Ticket(Any.pack(command).toByteArray()))),
        -1,
        -1);
  }

  /** Sends one batch of metadata rows (strings, ints, byte arrays or nulls) of a schema. */
  private void send(ServerStreamListener listener, Schema schema, Consumer<List<Object[]>> fill) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      List<Object[]> rows = new ArrayList<>();
      fill.accept(rows);
      List<FieldVector> vectors = root.getFieldVectors();
      for (FieldVector vector : vectors) {
        vector.allocateNew();
      }
      for (int row = 0; row < rows.size(); row++) {
        Object[] values = rows.get(row);
        for (int column = 0; column < values.length; column++) {
          FieldVector vector = vectors.get(column);
          Object value = values[column];
          if (value == null) {
            vector.setNull(row);
          } else if (vector instanceof VarCharVector strings) {
            strings.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
          } else if (vector instanceof IntVector ints) {
            ints.setSafe(row, (Integer) value);
          } else if (vector instanceof VarBinaryVector bytes) {
            bytes.setSafe(row, (byte[]) value);
          } else {
            throw new IllegalStateException("Unexpected metadata column " + vector.getField());
          }
        }
      }
      root.setRowCount(rows.size());
      listener.start(root);
      listener.putNext();
      listener.completed();
    } catch (RuntimeException e) {
      listener.error(FlightErrors.toFlight(e));
    }
  }
}
