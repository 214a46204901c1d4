package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.LocalFileIO;
import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.lake.LakeCatalog;
import io.lakestream.lake.TieringRound;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import io.lakestream.testing.EmbeddedLakestream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orphan-file sweep: data files that a round recorded, wrote and never committed (left by a
 * process that died before its commit) are deleted once old enough; files any snapshot references,
 * young files, and files this table's tiering did not record (even with tiering's names: another
 * table's, or planted) are kept. Also run by the tiering service on its own.
 */
class TieringOrphanFilesTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final Duration AGE = Duration.ofHours(1);

  @TempDir static Path data;
  @TempDir static Path serviceData;
  private static EmbeddedLakestream lakestream;
  private static RESTCatalog catalog;
  private static LakeCatalog lake;

  @BeforeAll
  static void start() {
    lakestream = EmbeddedLakestream.start(data, Map.of("tiering.enabled", "false"));
    catalog = lakestream.catalog();
    catalog.createNamespace(Namespace.of("orphans"), new HashMap<>());
    lake = IcebergLakeCatalog.of(catalog);
  }

  @AfterAll
  static void stop() throws Exception {
    lakestream.close();
  }

  private static TablePath create(RESTCatalog catalog, String name, Map<String, String> extra) {
    Map<String, String> properties =
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2"));
    properties.putAll(extra);
    catalog.createTable(
        TableIdentifier.of("orphans", name), SCHEMA, PartitionSpec.unpartitioned(), properties);
    return TablePath.of("orphans." + name);
  }

  private static void append(EmbeddedLakestream server, TablePath path, long from, long to) {
    try (AppendWriter writer = server.connection().table(path).newAppendWriter()) {
      for (long id = from; id < to; id++) {
        writer.append(id, "row " + id);
      }
      writer.flush();
    }
  }

  private static Table lakeTable(RESTCatalog catalog, TablePath path) {
    return catalog.loadTable(TableIdentifier.of("orphans", path.name()));
  }

  private static List<Long> ids(Table table, Long snapshotId) {
    List<Long> ids = new ArrayList<>();
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table);
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    try (CloseableIterable<Record> records = scan.build()) {
      records.forEach(record -> ids.add((Long) record.getField("id")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ids.sort(null);
    return ids;
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add(id);
    }
    return ids;
  }

  private static Path local(String location) {
    return LocalFileIO.toPath(location);
  }

  private static void setAge(Path file, Instant now, Duration age) throws IOException {
    Files.setLastModifiedTime(file, FileTime.from(now.minus(age)));
  }

  private static String tieringName() {
    return "00000-7-tiering-" + UUID.randomUUID() + "-00001.parquet";
  }

  @Test
  void deletesOldUnreferencedTieringFilesAndKeepsReferencedYoungAndForeignOnes() throws Exception {
    TablePath path = create(catalog, "swept", Map.of());
    IcebergTableTiering tiering = new IcebergTableTiering(lake, lakestream.connection());
    append(lakestream, path, 0, 300);
    TieringRound first = tiering.tierOnce(path);
    assertThat(first.outcome()).isEqualTo(TieringRound.Outcome.COMMITTED);
    Table table = lakeTable(catalog, path);
    List<DataFile> firstFiles = new ArrayList<>();
    table.currentSnapshot().addedDataFiles(table.io()).forEach(firstFiles::add);
    assertThat(firstFiles).isNotEmpty();

    // A round that dies between writing its files and committing them: the hook keeps the files'
    // bytes, the failed round deletes the files, and putting them back leaves exactly what a
    // killed process leaves behind.
    append(lakestream, path, 300, 400);
    Map<Path, byte[]> abandoned = new LinkedHashMap<>();
    IcebergTableTiering dying =
        new IcebergTableTiering(
            lake,
            lakestream.connection(),
            (table1, files) -> {
              for (DataFile file : files) {
                try {
                  abandoned.put(local(file.location()), Files.readAllBytes(local(file.location())));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }
              throw new IllegalStateException("process died before the commit");
            },
            Duration.ofMinutes(1));
    assertThatThrownBy(() -> dying.tierOnce(path)).hasMessageContaining("died before the commit");
    assertThat(abandoned).isNotEmpty();
    for (Map.Entry<Path, byte[]> file : abandoned.entrySet()) {
      assertThat(file.getKey()).doesNotExist();
      Files.write(file.getKey(), file.getValue());
    }
    assertThat(tiering.tierOnce(path).rows()).isEqualTo(100);

    // The first round's files are only in an older snapshot once the current one deletes them.
    long firstSnapshot = first.snapshotId();
    org.apache.iceberg.DeleteFiles delete = lakeTable(catalog, path).newDelete();
    firstFiles.forEach(delete::deleteFile);
    delete.commit();
    table = lakeTable(catalog, path);
    assertThat(ids(table, null)).containsExactlyElementsOf(range(300, 400));

    Path dataDirectory = local(OrphanFiles.dataLocation(table));
    Path foreign = dataDirectory.resolve("00000-0-spark-job-00001.parquet");
    // A file with tiering's name that no record of this table names: another table's tiering
    // (placed here by an older catalog) or anyone else wrote it. The old sweep deleted it.
    Path stray = dataDirectory.resolve(tieringName());
    // The temporary sibling of an abandoned file carries its writer's recorded operation id.
    Path temporary =
        dataDirectory.resolve(
            "."
                + abandoned.keySet().iterator().next().getFileName()
                + "."
                + UUID.randomUUID()
                + ".tmp");
    Files.write(foreign, new byte[] {1, 2, 3});
    Files.write(stray, new byte[] {4, 5, 6});
    Files.write(temporary, new byte[] {7});

    Instant now = Instant.now();
    List<Path> committed = new ArrayList<>();
    try (var files = Files.list(dataDirectory)) {
      files
          .filter(file -> OrphanFiles.isTieringFile(file.toString()))
          .filter(file -> !abandoned.containsKey(file) && !file.equals(stray))
          .filter(file -> !file.equals(temporary))
          .forEach(committed::add);
    }
    assertThat(committed).hasSize(firstFiles.size() + 1);
    // Everything but the stray file is older than the age, committed files included.
    for (Path file : committed) {
      setAge(file, now, AGE.multipliedBy(3));
    }
    for (Path file : abandoned.keySet()) {
      setAge(file, now, AGE.plusMinutes(1));
    }
    setAge(foreign, now, AGE.multipliedBy(3));
    setAge(stray, now, AGE.multipliedBy(3));
    setAge(temporary, now, AGE.plusMinutes(1));
    Path records = local(TieringWrites.directory(table));
    List<Path> recordFiles = new ArrayList<>();
    try (var files = Files.list(records)) {
      files.forEach(recordFiles::add);
    }
    // One record per writer of the three rounds (the first round's and the dying one's at least).
    assertThat(recordFiles).hasSizeGreaterThanOrEqualTo(3);
    for (Path record : recordFiles) {
      setAge(record, now, AGE.plusMinutes(1));
    }

    // No record is old enough half an hour earlier: nothing is even looked at.
    OrphanFiles.Sweep early =
        new OrphanFiles(lake, AGE, Clock.fixed(now.minus(AGE.dividedBy(2)), ZoneOffset.UTC))
            .sweep(path);
    assertThat(early.deleted()).isEmpty();
    assertThat(early.tieringFiles()).isZero();
    assertThat(recordFiles).allSatisfy(record -> assertThat(record).exists());

    OrphanFiles.Sweep sweep =
        new OrphanFiles(lake, AGE, Clock.fixed(now, ZoneOffset.UTC)).sweep(path);
    assertThat(sweep.listingSupported()).isTrue();
    assertThat(sweep.tieringFiles()).isEqualTo(committed.size() + abandoned.size() + 1);
    assertThat(sweep.referenced()).isEqualTo(committed.size());
    assertThat(sweep.tooYoung()).isZero();
    assertThat(sweep.unrecorded()).isEqualTo(1);
    List<Path> deleted = sweep.deleted().stream().map(TieringOrphanFilesTest::local).toList();
    List<Path> expected = new ArrayList<>(abandoned.keySet());
    expected.add(temporary);
    assertThat(deleted).containsExactlyInAnyOrderElementsOf(expected);
    expected.forEach(file -> assertThat(file).doesNotExist());
    assertThat(committed).allSatisfy(file -> assertThat(file).exists());
    assertThat(stray).exists();
    assertThat(foreign).exists();
    table = lakeTable(catalog, path);
    assertThat(ids(table, firstSnapshot)).containsExactlyElementsOf(range(0, 300));
    assertThat(ids(table, null)).containsExactlyElementsOf(range(300, 400));

    // Every record was settled and is gone; files this table's tiering did not record never go.
    assertThat(recordFiles).allSatisfy(record -> assertThat(record).doesNotExist());
    OrphanFiles.Sweep later =
        new OrphanFiles(lake, AGE, Clock.fixed(now.plus(AGE.multipliedBy(10)), ZoneOffset.UTC))
            .sweep(path);
    assertThat(later.deleted()).isEmpty();
    assertThat(stray).exists();
    assertThat(foreign).exists();
    assertThat(committed).allSatisfy(file -> assertThat(file).exists());
  }

  @Test
  void recognisesTieringFileNamesOnly() {
    String name = tieringName();
    assertThat(OrphanFiles.isTieringFile("file:/w/t/data/" + name)).isTrue();
    assertThat(OrphanFiles.isTieringFile("s3://b/t/data/p=1/" + name)).isTrue();
    assertThat(OrphanFiles.isTieringFile("/w/t/data/." + name + ".0c9e.tmp")).isTrue();
    assertThat(
            OrphanFiles.isTieringFile("/w/t/data/00000-7-" + UUID.randomUUID() + "-00001.parquet"))
        .isFalse();
    assertThat(OrphanFiles.isTieringFile("/w/tiering-" + UUID.randomUUID() + "/data/x.parquet"))
        .isFalse();
  }

  @Test
  void theServiceSweepsEveryTableAndTieringGoesOn() throws Exception {
    try (EmbeddedLakestream server =
        EmbeddedLakestream.start(
            serviceData,
            Map.of("tiering.discovery-interval", "1s", "tiering.orphan-file-age", "1s"))) {
      server.catalog().createNamespace(Namespace.of("orphans"), new HashMap<>());
      TablePath path =
          create(server.catalog(), "served", Map.of("lakestream.tiering.interval", "1s"));
      Table table = lakeTable(server.catalog(), path);
      Path dataDirectory = local(OrphanFiles.dataLocation(table));
      Files.createDirectories(dataDirectory);
      // What a round that died leaves: its record and a file named with its operation id.
      String operationId = "tiering-" + UUID.randomUUID();
      TieringWrites.record(table, operationId, OrphanFiles.dataLocation(table));
      Path record = local(TieringWrites.directory(table)).resolve(operationId);
      Path abandoned = dataDirectory.resolve("00000-3-" + operationId + "-00001.parquet");
      // A file with tiering's name that this table's tiering never recorded.
      Path planted = dataDirectory.resolve(tieringName());
      Path foreign = dataDirectory.resolve("00000-0-spark-job-00001.parquet");
      Files.write(abandoned, new byte[] {1});
      Files.write(planted, new byte[] {3});
      Files.write(foreign, new byte[] {2});
      Instant now = Instant.now();
      setAge(record, now, Duration.ofMinutes(5));
      setAge(abandoned, now, Duration.ofMinutes(5));
      setAge(planted, now, Duration.ofMinutes(5));
      setAge(foreign, now, Duration.ofMinutes(5));
      append(server, path, 0, 200);

      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (Files.exists(abandoned)
          || Files.exists(record)
          || ids(lakeTable(server.catalog(), path), null).size() < 200) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "Within 30 s: abandoned file still there: "
                  + Files.exists(abandoned)
                  + ", its record: "
                  + Files.exists(record)
                  + ", rows tiered: "
                  + ids(lakeTable(server.catalog(), path), null).size());
        }
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
      table = lakeTable(server.catalog(), path);
      assertThat(ids(table, null)).containsExactlyElementsOf(range(0, 200));
      assertThat(planted).exists();
      assertThat(foreign).exists();
      table
          .currentSnapshot()
          .addedDataFiles(table.io())
          .forEach(file -> assertThat(local(file.location())).exists());
      assertThat(server.server().tiering().orElseThrow().state(path).orElseThrow().lastError())
          .isNull();
    }
  }
}
