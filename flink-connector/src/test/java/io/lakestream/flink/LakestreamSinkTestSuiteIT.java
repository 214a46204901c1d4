package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.LogScanner;
import io.lakestream.client.Lookuper;
import io.lakestream.client.ScanBatch;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.environment.TestEnvironmentSettings;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.external.ExternalSystemDataReader;
import org.apache.flink.connector.testframe.external.sink.DataStreamSinkV2ExternalContext;
import org.apache.flink.connector.testframe.external.sink.TestingSinkSettings;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestExternalSystem;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SinkTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flink's sink test suite ({@link SinkTestSuiteBase}) against the sink that {@link
 * LakestreamSinkBuilder} builds, on a MiniCluster and the packaged server: a bounded job, restarts
 * from savepoints at the same, a higher and a lower parallelism, and the {@code numRecordsSend}
 * metric; with {@code EXACTLY_ONCE} checkpoints against the exactly-once sink (the table must hold
 * each row exactly once) and with {@code AT_LEAST_ONCE} against the at-least-once sink (each row at
 * least once).
 *
 * <p>The suite's records must be {@code Comparable} (it sorts them), which {@code RowData} is not:
 * the records are {@link TestRow}s, handed to the connector's {@code Sink<RowData>} by a sink that
 * only converts each one to a {@code GenericRowData} (and passes the committer through). Each test
 * case's context creates its own log table of two buckets and reads it back with the client's
 * {@link LogScanner}. Every case of the suite applies, none is overridden.
 */
// The suites' waits (eventuallySucceeds, waitUntilCondition) have no deadline of their own.
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LakestreamSinkTestSuiteIT extends SinkTestSuiteBase<LakestreamSinkTestSuiteIT.TestRow> {
  private static final Schema TABLE_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.required(3, "value", Types.DoubleType.get()));

  private static final AtomicInteger TABLES = new AtomicInteger();

  @TestEnv MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

  @TestExternalSystem
  LakestreamServerResource server = new LakestreamServerResource("flink-sink-suite");

  @TestContext
  ExternalContextFactory<LogTableContext> logTable = testName -> new LogTableContext(server);

  @TestSemantics
  CheckpointingMode[] semantics =
      new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE, CheckpointingMode.AT_LEAST_ONCE};

  /**
   * The builder's sink of a primary-key table whose key is not its first column: {@code +I} and
   * {@code +U} rows are upserts by that key and {@code -D} rows deletes, whatever the input's order
   * of kinds; the table's rows afterwards, looked up by key, are the last ones written.
   */
  @Test
  void builderWritesAPrimaryKeyTableByItsKey() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.optional(1, "name", Types.StringType.get()),
                Types.NestedField.required(2, "id", Types.LongType.get())),
            Set.of(2));
    TablePath path = new TablePath(null, List.of(LakestreamServerResource.DATABASE), "users");
    server
        .client()
        .admin()
        .createTable(
            path,
            TableDescriptor.of(
                schema, Map.of(TableDescriptor.KIND, "primary-key", TableDescriptor.BUCKETS, "2")));
    List<RowData> changes =
        List.of(
            row(RowKind.INSERT, "ann", 1),
            row(RowKind.INSERT, "bob", 2),
            row(RowKind.INSERT, "cid", 3),
            row(RowKind.UPDATE_BEFORE, "ann", 1),
            row(RowKind.UPDATE_AFTER, "amy", 1),
            row(RowKind.DELETE, "bob", 2));
    StreamExecutionEnvironment env =
        flink.createExecutionEnvironment(TestEnvironmentSettings.builder().build());
    env.fromData(
            changes,
            InternalTypeInfo.of(
                RowType.of(
                    new LogicalType[] {VarCharType.STRING_TYPE, new BigIntType(false)},
                    new String[] {"name", "id"})))
        .setParallelism(1)
        // Each key's changes on one writer, in order (the SQL planner does the same before a sink).
        .keyBy(row -> row.getLong(1), org.apache.flink.api.common.typeinfo.Types.LONG)
        .sinkTo(
            new LakestreamSinkBuilder()
                .setServer(server.address())
                .setTable(LakestreamServerResource.DATABASE, "users")
                .build())
        .setParallelism(2);
    env.execute("primary-key sink");

    Lookuper lookuper = server.client().table(path).newLookuper();
    assertThat(lookuper.lookup(1L).get(30, TimeUnit.SECONDS)).containsExactly("amy", 1L);
    assertThat(lookuper.lookup(2L).get(30, TimeUnit.SECONDS)).isNull();
    assertThat(lookuper.lookup(3L).get(30, TimeUnit.SECONDS)).containsExactly("cid", 3L);
  }

  /** The builder refuses what it cannot write to, naming it, before any job runs. */
  @Test
  void builderRefusesAnUnknownTableAndNoGuarantee() {
    assertThatThrownBy(
            () ->
                new LakestreamSinkBuilder()
                    .setServer(server.address())
                    .setTable(LakestreamServerResource.DATABASE, "no_such_table")
                    .build())
        .hasMessageContaining("no_such_table");
    assertThatThrownBy(
            () -> new LakestreamSinkBuilder().setDeliveryGuarantee(DeliveryGuarantee.NONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NONE");
    assertThatThrownBy(() -> new LakestreamSinkBuilder().build())
        .isInstanceOf(IllegalStateException.class);
  }

  private static RowData row(RowKind kind, String name, long id) {
    GenericRowData row = GenericRowData.of(StringData.fromString(name), id);
    row.setRowKind(kind);
    return row;
  }

  /**
   * A row of the test's log table, ordered by all its values (serializable: the suite's source
   * carries its rows in the job graph).
   */
  public record TestRow(long id, String name, double value)
      implements Comparable<TestRow>, java.io.Serializable {
    private static final Comparator<TestRow> ORDER =
        Comparator.comparingLong(TestRow::id)
            .thenComparing(TestRow::name, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparingDouble(TestRow::value);

    @Override
    public int compareTo(TestRow other) {
      return ORDER.compare(this, other);
    }

    RowData toRowData() {
      return GenericRowData.of(id, name == null ? null : StringData.fromString(name), value);
    }
  }

  /** A log table of two buckets, written by the sink of the checkpointing mode's guarantee. */
  static final class LogTableContext implements DataStreamSinkV2ExternalContext<TestRow> {
    private final LakestreamServerResource server;
    private final TablePath path;
    private final String table;
    private final List<LogScanner> scanners = new ArrayList<>();

    LogTableContext(LakestreamServerResource server) {
      this.server = server;
      this.table = "sink_" + TABLES.incrementAndGet();
      this.path = new TablePath(null, List.of(LakestreamServerResource.DATABASE), table);
      server.client().admin().createTable(path, TableDescriptor.logTable(TABLE_SCHEMA, 2));
    }

    @Override
    public Sink<TestRow> createSink(TestingSinkSettings settings) {
      Sink<RowData> sink =
          new LakestreamSinkBuilder()
              .setServer(server.address())
              .setTable(LakestreamServerResource.DATABASE, table)
              .setDeliveryGuarantee(
                  settings.getCheckpointingMode()
                          == org.apache.flink.streaming.api.CheckpointingMode.EXACTLY_ONCE
                      ? DeliveryGuarantee.EXACTLY_ONCE
                      : DeliveryGuarantee.AT_LEAST_ONCE)
              .build();
      return sink instanceof SupportsCommitter<?> committing
          ? new ConvertingCommittingSink<>(sink, committing)
          : new ConvertingSink(sink);
    }

    /** Reads the table from the start of each bucket; each call returns the rows after the last. */
    @Override
    public ExternalSystemDataReader<TestRow> createSinkDataReader(TestingSinkSettings settings) {
      LogScanner scanner = server.client().table(path).newScanner();
      scanners.add(scanner);
      for (int bucket = 0; bucket < 2; bucket++) {
        scanner.subscribe(bucket, LogScanner.earliest());
      }
      return new ExternalSystemDataReader<>() {
        @Override
        public List<TestRow> poll(Duration timeout) {
          List<TestRow> rows = new ArrayList<>();
          for (ScanBatch batch : scanner.poll(timeout)) {
            try (batch) {
              for (Object[] values : batch.rows()) {
                rows.add(new TestRow((Long) values[0], (String) values[1], (Double) values[2]));
              }
            }
          }
          return rows;
        }

        @Override
        public void close() {
          if (scanners.remove(scanner)) {
            scanner.close();
          }
        }
      };
    }

    @Override
    public List<TestRow> generateTestData(TestingSinkSettings settings, long seed) {
      Random random = new Random(seed);
      int count = 50 + random.nextInt(100);
      List<TestRow> rows = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        String name = random.nextInt(10) == 0 ? null : "name-" + random.nextInt(1000);
        rows.add(new TestRow(random.nextLong(), name, random.nextDouble()));
      }
      return rows;
    }

    @Override
    public TypeInformation<TestRow> getProducedType() {
      return TypeInformation.of(TestRow.class);
    }

    @Override
    public List<URL> getConnectorJarPaths() {
      return List.of();
    }

    @Override
    public void close() {
      for (LogScanner scanner : List.copyOf(scanners)) {
        scanner.close();
      }
      scanners.clear();
      server.client().admin().dropTable(path);
    }
  }

  /**
   * The connector's sink, taking {@link TestRow}s as the {@code RowData} of the table's columns.
   */
  private static class ConvertingSink implements Sink<TestRow> {
    private static final long serialVersionUID = 1L;

    final Sink<RowData> sink;

    ConvertingSink(Sink<RowData> sink) {
      this.sink = Objects.requireNonNull(sink, "sink is null");
    }

    @Override
    public SinkWriter<TestRow> createWriter(WriterInitContext context) throws IOException {
      return new ConvertingWriter(sink.createWriter(context));
    }
  }

  /** The exactly-once sink's variant: the committer and its committables pass through. */
  private static final class ConvertingCommittingSink<C> extends ConvertingSink
      implements SupportsCommitter<C> {
    private static final long serialVersionUID = 1L;

    private final SupportsCommitter<C> committing;

    ConvertingCommittingSink(Sink<RowData> sink, SupportsCommitter<C> committing) {
      super(sink);
      this.committing = committing;
    }

    @SuppressWarnings("unchecked")
    @Override
    public SinkWriter<TestRow> createWriter(WriterInitContext context) throws IOException {
      return new ConvertingCommittingWriter<>(
          (CommittingSinkWriter<RowData, C>) sink.createWriter(context));
    }

    @Override
    public Committer<C> createCommitter(CommitterInitContext context) throws IOException {
      return committing.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<C> getCommittableSerializer() {
      return committing.getCommittableSerializer();
    }
  }

  private static class ConvertingWriter implements SinkWriter<TestRow> {
    private final SinkWriter<RowData> writer;

    ConvertingWriter(SinkWriter<RowData> writer) {
      this.writer = writer;
    }

    @Override
    public void write(TestRow row, Context context) throws IOException, InterruptedException {
      writer.write(row.toRowData(), context);
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
      writer.flush(endOfInput);
    }

    @Override
    public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
      writer.writeWatermark(watermark);
    }

    @Override
    public void close() throws Exception {
      writer.close();
    }
  }

  private static final class ConvertingCommittingWriter<C> extends ConvertingWriter
      implements CommittingSinkWriter<TestRow, C> {
    private final CommittingSinkWriter<RowData, C> writer;

    ConvertingCommittingWriter(CommittingSinkWriter<RowData, C> writer) {
      super(writer);
      this.writer = writer;
    }

    @Override
    public Collection<C> prepareCommit() throws IOException, InterruptedException {
      return writer.prepareCommit();
    }
  }
}
