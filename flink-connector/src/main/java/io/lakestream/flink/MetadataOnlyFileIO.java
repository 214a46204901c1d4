package io.lakestream.flink;

import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The file IO of the connector's REST catalog client: listing tables and reading their schemas and
 * properties need only the metadata the REST responses carry, so this one refuses to open any file
 * (and keeps Hadoop off the connector's classpath).
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
        "The Lakestream catalog reads no files (asked for " + path + ")");
  }
}
