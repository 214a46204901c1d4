package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batches decoded into the writer's scan memory move into the data files without a copy, whole or
 * in part; batches from other memory are copied. Either way the file holds exactly the rows taken.
 */
class DuckDbDataWriterMemoryTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  @TempDir Path directory;

  @Test
  void batchesInTheScanMemoryMoveAndOthersAreCopied() throws Exception {
    Table table =
        new HadoopTables(new Configuration())
            .create(SCHEMA, PartitionSpec.unpartitioned(), directory.resolve("t").toString());
    List<String> expected = new ArrayList<>();
    List<DataFile> files;
    try (DuckDbDataWriter writer =
            new DuckDbDataWriter(
                table,
                OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build());
        BufferAllocator foreign = new RootAllocator()) {
      BufferAllocator scanMemory = writer.newScanAllocator();
      // A whole batch and a part of one from the scan memory: their buffers change owner.
      FieldVector[] whole = batch(scanMemory, 0, 1000);
      assertThat(writer.add("", null, whole, 0, 1000)).isTrue();
      expectRows(expected, 0, 1000);
      // Moved, not copied: the batch is left empty and the scan memory holds nothing of it.
      assertThat(whole[0].getValueCount()).isZero();
      assertThat(scanMemory.getAllocatedMemory()).isZero();
      FieldVector[] part = batch(scanMemory, 1000, 500);
      assertThat(writer.add("", null, part, 100, 400)).isTrue();
      expectRows(expected, 1100, 1400);
      closeAll(whole);
      closeAll(part);
      assertThat(scanMemory.getAllocatedMemory()).isZero();
      // A batch from other memory is copied and stays its owner's.
      FieldVector[] copied = batch(foreign, 2000, 300);
      long before = foreign.getAllocatedMemory();
      assertThat(writer.add("", null, copied, 0, 300)).isTrue();
      expectRows(expected, 2000, 2300);
      assertThat(foreign.getAllocatedMemory()).isEqualTo(before);
      assertThat(copied[0].getValueCount()).isEqualTo(300);
      closeAll(copied);

      files = writer.finish();
      scanMemory.close();
    }
    assertThat(files).hasSize(1);
    assertThat(files.get(0).recordCount()).isEqualTo(expected.size());
    List<String> read = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(files.get(0).location()))
            .project(SCHEMA)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(SCHEMA, fileSchema))
            .build()) {
      for (Record record : records) {
        read.add(record.getField("id") + ":" + record.getField("name"));
      }
    }
    assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** Rows {@code first} .. {@code first + count - 1}: id i, name "row-i" (null for every 7th). */
  private static FieldVector[] batch(BufferAllocator allocator, int first, int count) {
    BigIntVector ids = new BigIntVector("id", allocator);
    VarCharVector names = new VarCharVector("name", allocator);
    ids.allocateNew(count);
    names.allocateNew(count);
    for (int i = 0; i < count; i++) {
      long id = first + i;
      ids.set(i, id);
      if (id % 7 == 0) {
        names.setNull(i);
      } else {
        names.setSafe(i, ("row-" + id).getBytes(StandardCharsets.UTF_8));
      }
    }
    ids.setValueCount(count);
    names.setValueCount(count);
    return new FieldVector[] {ids, names};
  }

  private static void expectRows(List<String> expected, long from, long to) {
    for (long id = from; id < to; id++) {
      expected.add(id + ":" + (id % 7 == 0 ? null : "row-" + id));
    }
  }

  private static void closeAll(FieldVector[] vectors) {
    for (FieldVector vector : vectors) {
      vector.close();
    }
  }
}
