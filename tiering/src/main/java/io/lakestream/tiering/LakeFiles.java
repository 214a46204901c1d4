package io.lakestream.tiering;

import java.util.List;
import java.util.UUID;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How tiering writes files into a lake table: Parquet, rolled at the table's {@code
 * write.target-file-size-bytes}, named with an operation id that starts with {@value
 * #OPERATION_PREFIX} so that files of abandoned attempts can be told apart from others.
 */
final class LakeFiles {
  private static final Logger LOG = LoggerFactory.getLogger(LakeFiles.class);

  /** The start of the operation id in the name of every file tiering writes. */
  static final String OPERATION_PREFIX = "tiering-";

  private LakeFiles() {}

  /** A data writer fanned out by partition. */
  static FanoutDataWriter<Record> dataWriter(Table table, long attempt) {
    return new FanoutDataWriter<>(
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build(),
        outputFiles(table, attempt),
        table.io(),
        targetFileSize(table));
  }

  /**
   * Names new files with a fresh operation id; {@code attempt} keeps task ids apart. The id is
   * recorded durably ({@link TieringWrites}) before this returns, so every file the factory names
   * is known to the orphan sweep before it exists.
   */
  static OutputFileFactory outputFiles(Table table, long attempt) {
    String operationId = OPERATION_PREFIX + UUID.randomUUID();
    TieringWrites.record(table, operationId, OrphanFiles.dataLocation(table));
    return OutputFileFactory.builderFor(table, 0, attempt)
        .format(FileFormat.PARQUET)
        .operationId(operationId)
        .build();
  }

  /** Whether a file's name is one tiering gives its files (it carries the operation id). */
  static boolean isTieringFile(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    return name.contains("-" + OPERATION_PREFIX);
  }

  static long targetFileSize(Table table) {
    return PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /** Deletes files that no snapshot references, logging (not throwing) what cannot be deleted. */
  static void deleteQuietly(FileIO io, List<? extends ContentFile<?>> files) {
    for (ContentFile<?> file : files) {
      try {
        io.deleteFile(file.location());
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete file {} of a failed tiering attempt", file.location(), e);
      }
    }
  }
}
