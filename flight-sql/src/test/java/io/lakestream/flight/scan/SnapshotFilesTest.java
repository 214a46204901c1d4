package io.lakestream.flight.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SnapshotFiles} against the test's own record of what each snapshot holds: appends listed
 * from their parent, other operations planned in full, and snapshots DuckDB cannot read in place
 * refused, whatever order the snapshots are asked in.
 */
class SnapshotFilesTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  private Table table;
  private int nextFile;

  @BeforeEach
  void createTable() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    table =
        catalog.createTable(
            TableIdentifier.of("db", "events"),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2"));
  }

  @Test
  void appendsListedFromTheirParentMatchAFullListing() {
    List<String> model = new ArrayList<>();
    List<Snapshot> snapshots = new ArrayList<>();
    List<List<String>> expected = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      DataFile first = parquet();
      DataFile second = parquet();
      table.newFastAppend().appendFile(first).appendFile(second).commit();
      model.add(first.location());
      model.add(second.location());
      snapshots.add(table.currentSnapshot());
      expected.add(List.copyOf(model));
    }
    SnapshotFiles inOrder = new SnapshotFiles(16);
    for (int i = 0; i < snapshots.size(); i++) {
      assertThat(inOrder.files(table, snapshots.get(i)).orElseThrow())
          .containsExactlyInAnyOrderElementsOf(expected.get(i));
    }
    SnapshotFiles newestFirst = new SnapshotFiles(1);
    for (int i = snapshots.size() - 1; i >= 0; i--) {
      assertThat(newestFirst.files(table, snapshots.get(i)).orElseThrow())
          .containsExactlyInAnyOrderElementsOf(expected.get(i));
    }
  }

  @Test
  void aDeleteIsListedInFull() {
    DataFile kept = parquet();
    DataFile dropped = parquet();
    table.newFastAppend().appendFile(kept).appendFile(dropped).commit();
    SnapshotFiles files = new SnapshotFiles(16);
    assertThat(files.files(table, table.currentSnapshot()).orElseThrow())
        .containsExactlyInAnyOrder(kept.location(), dropped.location());
    table.newDelete().deleteFile(dropped).commit();
    DataFile later = parquet();
    table.newFastAppend().appendFile(later).commit();
    assertThat(files.files(table, table.snapshot(table.currentSnapshot().parentId())).orElseThrow())
        .containsExactly(kept.location());
    assertThat(files.files(table, table.currentSnapshot()).orElseThrow())
        .containsExactlyInAnyOrder(kept.location(), later.location());
  }

  @Test
  void snapshotsDuckDbCannotReadInPlaceAreRefused() {
    table.newFastAppend().appendFile(parquet()).commit();
    SnapshotFiles files = new SnapshotFiles(16);
    assertThat(files.files(table, table.currentSnapshot())).isPresent();

    table.newFastAppend().appendFile(file(FileFormat.ORC, "/warehouse/data/x.orc")).commit();
    assertThat(files.files(table, table.currentSnapshot())).isEmpty();

    table.newFastAppend().appendFile(parquet()).commit();
    assertThat(files.files(table, table.currentSnapshot()))
        .as("an append on top of a refused snapshot")
        .isEmpty();
  }

  @Test
  void deleteFilesAndRemoteFilesAreRefused() {
    table.newFastAppend().appendFile(parquet()).commit();
    SnapshotFiles files = new SnapshotFiles(16);
    assertThat(files.files(table, table.currentSnapshot())).isPresent();
    DeleteFile deletes =
        FileMetadata.deleteFileBuilder(table.spec())
            .ofPositionDeletes()
            .withPath("/warehouse/data/deletes-1.parquet")
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(100)
            .withRecordCount(1)
            .build();
    table.newRowDelta().addDeletes(deletes).commit();
    assertThat(files.files(table, table.currentSnapshot())).isEmpty();

    createTable();
    table.newFastAppend().appendFile(parquet()).commit();
    assertThat(files.files(table, table.currentSnapshot())).isPresent();
    table
        .newFastAppend()
        .appendFile(file(FileFormat.PARQUET, "s3://bucket/warehouse/data/remote.parquet"))
        .commit();
    assertThat(files.files(table, table.currentSnapshot())).isEqualTo(Optional.empty());
  }

  @Test
  void aKeyedSnapshotListsItsEqualityDeletesWithSequenceNumbers() {
    keyedTable();
    DataFile first = parquet();
    table.newFastAppend().appendFile(first).commit();
    long firstSequence = table.currentSnapshot().sequenceNumber();
    SnapshotFiles files = new SnapshotFiles(16);
    assertThat(files.keyed(table, table.currentSnapshot()).orElseThrow())
        .isEqualTo(
            new SnapshotFiles.LakeFiles(
                List.of(new SnapshotFiles.SequencedFile(first.location(), firstSequence)),
                List.of()));

    DataFile second = parquet();
    DeleteFile deletes = equalityDeletes("/warehouse/data/deletes-1.parquet", 1);
    table.newRowDelta().addRows(second).addDeletes(deletes).commit();
    long secondSequence = table.currentSnapshot().sequenceNumber();
    assertThat(secondSequence).isGreaterThan(firstSequence);
    SnapshotFiles.LakeFiles keyed = files.keyed(table, table.currentSnapshot()).orElseThrow();
    assertThat(keyed.data())
        .containsExactlyInAnyOrder(
            new SnapshotFiles.SequencedFile(first.location(), firstSequence),
            new SnapshotFiles.SequencedFile(second.location(), secondSequence));
    assertThat(keyed.deletes())
        .containsExactly(new SnapshotFiles.SequencedFile(deletes.location(), secondSequence));
    assertThat(keyed.paths())
        .containsExactlyInAnyOrder(first.location(), second.location(), deletes.location());
  }

  @Test
  void keyedSnapshotsWithOtherDeletesAreRefused() {
    keyedTable();
    table.newFastAppend().appendFile(parquet()).commit();
    table
        .newRowDelta()
        .addDeletes(equalityDeletes("/warehouse/data/deletes-on-payload.parquet", 2))
        .commit();
    SnapshotFiles files = new SnapshotFiles(16);
    assertThat(files.keyed(table, table.currentSnapshot())).as("not on the key").isEmpty();

    keyedTable();
    table.newFastAppend().appendFile(parquet()).commit();
    table
        .newRowDelta()
        .addDeletes(
            FileMetadata.deleteFileBuilder(table.spec())
                .ofPositionDeletes()
                .withPath("/warehouse/data/position-deletes.parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .build())
        .commit();
    assertThat(files.keyed(table, table.currentSnapshot())).as("position deletes").isEmpty();
  }

  private void keyedTable() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("keyed", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    table =
        catalog.createTable(
            TableIdentifier.of("db", "state"),
            new Schema(
                List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "payload", Types.StringType.get())),
                Set.of(1)),
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2"));
  }

  private DeleteFile equalityDeletes(String path, int fieldId) {
    return FileMetadata.deleteFileBuilder(table.spec())
        .ofEqualityDeletes(fieldId)
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
  }

  private DataFile parquet() {
    return file(FileFormat.PARQUET, "/warehouse/data/file-" + nextFile++ + ".parquet");
  }

  private DataFile file(FileFormat format, String path) {
    return DataFiles.builder(table.spec())
        .withPath(path)
        .withFormat(format)
        .withFileSizeInBytes(1000)
        .withRecordCount(10)
        .build();
  }
}
