package io.lakestream.tiering.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.Connection;
import io.lakestream.client.TableDescriptor;
import io.lakestream.client.TablePath;
import io.lakestream.testing.PackagedServer;
import io.lakestream.testing.S3ProxyProcess;
import io.lakestream.testing.SharedPerTestRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The tiering job on a warehouse in S3-compatible object storage (S3Proxy, a separate process), as
 * in docker-compose: the job holds no storage keys; its S3FileIO's requests are signed by the
 * server (remote signing), and the rows written show up in Iceberg once each.
 */
class TieringJobS3IT {
  private static final Duration SERVER_START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final String BUCKET = "lakehouse";

  @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

  private static S3ProxyProcess s3;
  private static PackagedServer server;

  @BeforeAll
  static void start() throws Exception {
    Path run = SharedPerTestRun.newRunDirectory("tiering-job-s3-it-");
    s3 = S3ProxyProcess.start(run.resolve("s3"), Duration.ofSeconds(60));
    try (S3Client client = s3.client()) {
      client.createBucket(request -> request.bucket(BUCKET));
    }
    List<String> flags = new ArrayList<>(List.of("--tiering-enabled", "false"));
    s3.warehouseSettings("s3://" + BUCKET + "/warehouse")
        .forEach(
            (key, value) -> {
              flags.add("--" + key.replace('.', '-'));
              flags.add(value);
            });
    server = PackagedServer.start(run, SERVER_START_TIMEOUT, flags.toArray(String[]::new));
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void tiersIntoObjectStorageThroughRemoteSigning() throws Exception {
    TablePath path = new TablePath("lake", List.of("events"), "clicks");
    List<Long> written = new ArrayList<>();
    try (Connection client = Connection.open("127.0.0.1", server.rpcPort(), null)) {
      client.admin().createNamespace("lake", List.of("events"));
      client
          .admin()
          .createTable(
              path,
              TableDescriptor.logTable(
                      new org.apache.iceberg.Schema(
                          Types.NestedField.required(1, "id", Types.LongType.get())),
                      2)
                  .withProperty("lakestream.tiering.interval", "1s"));
      try (AppendWriter writer = client.table(path).newAppendWriter()) {
        for (long id = 0; id < 500; id++) {
          writer.append(id);
          written.add(id);
        }
        writer.flush();
      }
    }

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    TieringJob.addTo(
        env,
        TieringJobOptions.parse(
            new String[] {
              "--uri", server.baseUri(),
              "--rpc-address", "127.0.0.1:" + server.rpcPort(),
              "--warehouse", "lake",
              "--catalog.header.X-Iceberg-Access-Delegation", "remote-signing",
              "--catalog.http-client.type", "urlconnection",
              "--interval", "500ms",
              "--parallelism", "1"
            },
            1),
        JobTieringHook.NONE);
    JobClient job = env.executeAsync(TieringJob.NAME);
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(
        "test",
        new HashMap<>(
            Map.of(
                "uri", server.baseUri(),
                "warehouse", "lake",
                "header.X-Iceberg-Access-Delegation", "remote-signing",
                "http-client.type", "urlconnection")));
    try {
      List<Long> ids = new ArrayList<>();
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (ids.size() < written.size() && System.nanoTime() < deadline) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        Table table = catalog.loadTable(TableIdentifier.of("events", "clicks"));
        ids.clear();
        if (table.currentSnapshot() != null) {
          assertThat(table.location()).startsWith("s3://" + BUCKET + "/");
          try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(record -> ids.add((Long) record.getField("id")));
          }
        }
      }
      assertThat(ids).as("ids in Iceberg").containsExactlyInAnyOrderElementsOf(written);
    } finally {
      catalog.close();
      job.cancel().get(60, TimeUnit.SECONDS);
    }
  }
}
