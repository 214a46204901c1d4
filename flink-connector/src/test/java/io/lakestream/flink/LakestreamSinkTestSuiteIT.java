package io.lakestream.flink;

import io.lakestream.client.LogScanner;
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
import java.util.Objects;
import java.util.Random;
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
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

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
 * {@link LogScanner}.
 */
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
