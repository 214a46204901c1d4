package io.lakestream.flight.server;

import static java.util.Objects.requireNonNull;

import io.lakestream.flight.query.FlightErrors;
import io.lakestream.flight.sql.InvalidQueryException;
import io.lakestream.flight.write.FlightIngest;
import io.lakestream.flight.write.SqlWrite;
import io.lakestream.flight.write.SqlWrites;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/**
 * The SQL writes of the Flight SQL endpoint ({@code CommandStatementUpdate} and prepared updates):
 * each runs through {@link SqlWrites} and answers its update count; a prepared write runs once per
 * bound row of parameters. Thread safe.
 */
final class UpdateCalls {
  private final SqlWrites writes;
  private final BufferAllocator allocator;

  UpdateCalls(SqlWrites writes, BufferAllocator allocator) {
    this.writes = requireNonNull(writes, "writes is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  /**
   * Runs the write {@code sql} for {@code principal}; refuses a query or a parameterized INSERT.
   */
  Runnable update(String sql, String principal, StreamListener<PutResult> listener) {
    return () ->
        FlightErrors.answering(
            listener,
            () -> {
              SqlWrite write = SqlWrites.parse(sql);
              if (write == null) {
                throw new InvalidQueryException(
                    "This is a query, not an update; run it as a query: " + sql);
              }
              if (isParameterizedInsert(write)) {
                throw new InvalidQueryException(
                    "An INSERT with parameters (?) needs a prepared statement to bind them to");
              }
              sendUpdateCount(writes.run(write, principal), listener);
            });
  }

  /** Runs a prepared write of {@code principal}'s once per row of parameters the client binds. */
  Runnable updatePrepared(
      LakestreamFlightSqlProducer.PreparedWrite write,
      String principal,
      FlightStream stream,
      StreamListener<PutResult> listener) {
    return () ->
        FlightErrors.answering(
            listener,
            () -> {
              if (!write.principal().equals(principal)) {
                throw CallStatus.NOT_FOUND
                    .withDescription(
                        "No prepared statement under this handle: closed or never created")
                    .toRuntimeException();
              }
              // Each bound row of parameters runs the statement once (a JDBC batch); none bound
              // runs it as written.
              long rows = 0;
              boolean bound = false;
              while (stream.next()) {
                VectorSchemaRoot root = stream.getRoot();
                for (int row = 0; row < root.getRowCount(); row++) {
                  rows += writes.run(write.write(), parameterRow(root, row), write.principal());
                  bound = true;
                }
              }
              if (!bound) {
                rows = writes.run(write.write(), write.principal());
              }
              sendUpdateCount(rows, listener);
            });
  }

  /** One row of bound parameters as the values a statement is run with. */
  static List<Object> parameterRow(VectorSchemaRoot root, int row) {
    List<Object> values = new ArrayList<>();
    for (FieldVector vector : root.getFieldVectors()) {
      Object value = vector.getObject(row);
      values.add(value instanceof Text text ? text.toString() : value);
    }
    return values;
  }

  /** An INSERT whose rows are bound as parameters: the bulk path of {@link FlightIngest}. */
  static boolean isParameterizedInsert(SqlWrite write) {
    return write instanceof SqlWrite.Insert insert && insert.source().contains("?");
  }

  private void sendUpdateCount(long rows, StreamListener<PutResult> listener) {
    byte[] result =
        FlightSql.DoPutUpdateResult.newBuilder().setRecordCount(rows).build().toByteArray();
    try (org.apache.arrow.memory.ArrowBuf buffer = allocator.buffer(result.length)) {
      buffer.writeBytes(result);
      listener.onNext(PutResult.metadata(buffer));
    }
    listener.onCompleted();
  }
}
