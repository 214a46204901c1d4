package io.lakestream.lake.iceberg;

import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The file IO of an engine connector's REST catalog client (Trino's, Flink's): listing tables,
 * reading their schemas and properties and planning union reads need only the metadata the REST
 * responses carry, and the engines read data files through their own file systems, so this one
 * refuses to open any file (and keeps Hadoop off the connectors' class paths).
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
        "A Lakestream connector catalog client reads no files (asked for " + path + ")");
  }
}
