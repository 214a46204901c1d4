package io.lakestream.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.flink.source.LakestreamSourceBuilder;
import io.lakestream.flink.source.LogSource;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestExternalSystem;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SourceTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flink's source test suite ({@link SourceTestSuiteBase}) against the log source that {@link
 * LakestreamSourceBuilder} builds, on a MiniCluster and the packaged server: single and multiple
 * splits, an idle reader, restarts from savepoints at the same, a higher and a lower parallelism, a
 * TaskManager failover and the {@code numRecordsIn} metric.
 *
 * <p>Each test case's context creates its own log table, partitioned by a {@code split} column with
 * one bucket per partition, so that a split of the suite is a partition (one source split) and its
 * rows keep their order. The rows are generated from the suite's seed; the source emits Flink's
 * binary rows, so the expected rows are binary rows too ({@code RowData} equality is per
 * implementation). Every case of the suite applies, none is overridden; the source's semantic is
 * exactly once (its split state is the next offset).
 */
// The suites' waits (eventuallySucceeds, waitUntilCondition) have no deadline of their own.
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LakestreamSourceTestSuiteIT extends SourceTestSuiteBase<RowData> {
  private static final RowType ROW_TYPE =
      RowType.of(
          new LogicalType[] {
            new BigIntType(false),
            new VarCharType(false, VarCharType.MAX_LENGTH),
            new VarCharType(true, VarCharType.MAX_LENGTH),
            new DoubleType(false)
          },
          new String[] {"id", "split", "name", "value"});

  private static final Schema TABLE_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "split", Types.StringType.get()),
          Types.NestedField.optional(3, "name", Types.StringType.get()),
          Types.NestedField.required(4, "value", Types.DoubleType.get()));

  private static final AtomicInteger TABLES = new AtomicInteger();

  @TestEnv MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

  @TestExternalSystem
  LakestreamServerResource server = new LakestreamServerResource("flink-source-suite");

  @TestContext
  ExternalContextFactory<LogTableContext> logTable = testName -> new LogTableContext(server);

  @TestSemantics
  CheckpointingMode[] semantics = new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE};

  /**
   * The builder reads the chosen columns in the chosen order, with the table's types, and refuses a
   * column the table does not have, naming the table's.
   */
  @Test
  void builderReadsChosenColumnsAndRefusesUnknownOnes() {
    LogTableContext context = new LogTableContext(server);
    try {
      String table = context.path.name();
      LogSource source =
          new LakestreamSourceBuilder()
              .setServer(server.address())
              .setTable(LakestreamServerResource.DATABASE, table)
              .setColumns("value", "id")
              .build();
      assertThat(source.getProducedType())
          .isEqualTo(
              InternalTypeInfo.of(
                  RowType.of(
                      new LogicalType[] {new DoubleType(false), new BigIntType(false)},
                      new String[] {"value", "id"})));
      assertThatThrownBy(
              () ->
                  new LakestreamSourceBuilder()
                      .setServer(server.address())
                      .setTable(LakestreamServerResource.DATABASE, table)
                      .setColumns("id", "colour")
                      .build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("colour")
          .hasMessageContaining("[id, split, name, value]");
    } finally {
      context.close();
    }
  }

  /** A log table partitioned by split, read from the start of each partition's log. */
  static final class LogTableContext implements DataStreamSourceExternalContext<RowData> {
    private final LakestreamServerResource server;
    private final TablePath path;
    private final String table;
    private final List<AppendWriter> writers = new ArrayList<>();

    LogTableContext(LakestreamServerResource server) {
      this.server = server;
      this.table = "source_" + TABLES.incrementAndGet();
      this.path = new TablePath(null, List.of(LakestreamServerResource.DATABASE), table);
      server
          .client()
          .admin()
          .createTable(
              path,
              TableDescriptor.logTable(TABLE_SCHEMA, 1)
                  .withPartitionSpecJson(
                      PartitionSpecParser.toJson(
                          PartitionSpec.builderFor(TABLE_SCHEMA).identity("split").build())));
    }

    @Override
    public Source<RowData, ?, ?> createSource(TestingSourceSettings settings) {
      return new LakestreamSourceBuilder()
          .setServer(server.address())
          .setTable(LakestreamServerResource.DATABASE, table)
          .startFromEarliest()
          .setBounded(settings.getBoundedness() == Boundedness.BOUNDED)
          .setPartitionDiscoveryInterval(Duration.ofMillis(200))
          .build();
    }

    /** A writer of the next split; the rows name their partition (split) themselves. */
    @Override
    public ExternalSystemSplitDataWriter<RowData> createSourceSplitDataWriter(
        TestingSourceSettings settings) {
      AppendWriter writer = server.client().table(path).newAppendWriter();
      writers.add(writer);
      return new ExternalSystemSplitDataWriter<>() {
        @Override
        public void writeRecords(List<RowData> records) {
          for (RowData row : records) {
            writer.append(
                row.getLong(0),
                row.getString(1).toString(),
                row.isNullAt(2) ? null : row.getString(2).toString(),
                row.getDouble(3));
          }
          writer.flush();
        }

        @Override
        public void close() {
          if (writers.remove(writer)) {
            writer.close();
          }
        }
      };
    }

    @Override
    public List<RowData> generateTestData(
        TestingSourceSettings settings, int splitIndex, long seed) {
      Random random = new Random(seed);
      RowDataSerializer binary = new RowDataSerializer(ROW_TYPE);
      int count = 20 + random.nextInt(80);
      List<RowData> rows = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        // Names of 0 to 20 characters: binary rows keep up to 7 bytes inline, longer ones apart.
        String name = random.nextInt(10) == 0 ? null : randomText(random, random.nextInt(21));
        GenericRowData row =
            GenericRowData.of(
                random.nextLong(),
                StringData.fromString("split-" + splitIndex),
                name == null ? null : StringData.fromString(name),
                random.nextDouble());
        rows.add(binary.toBinaryRow(row).copy());
      }
      return rows;
    }

    private static String randomText(Random random, int length) {
      StringBuilder text = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        text.append((char) ('a' + random.nextInt(26)));
      }
      return text.toString();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
      return InternalTypeInfo.of(ROW_TYPE);
    }

    @Override
    public List<URL> getConnectorJarPaths() {
      return List.of();
    }

    @Override
    public void close() {
      for (AppendWriter writer : writers) {
        writer.close();
      }
      server.client().admin().dropTable(path);
    }
  }
}
