package io.lakestream.trino;

import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The file IO of the REST catalog client that plans union reads: planning needs only the table
 * metadata the REST responses carry, and every file is read by the Iceberg connector's own file
 * systems, so this one refuses to open any.
 */
public final class MetadataOnlyFileIO implements FileIO {
  @Override
  public InputFile newInputFile(String path) {
    throw refused(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    throw refused(path);
  }

  @Override
  public void deleteFile(String path) {
    throw refused(path);
  }

  private static UnsupportedOperationException refused(String path) {
    return new UnsupportedOperationException(
        "The union-read planner reads no files (asked for " + path + ")");
  }
}
