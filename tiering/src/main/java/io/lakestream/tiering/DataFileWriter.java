package io.lakestream.tiering;

/** How tiering writes the Parquet data files of log tables. */
public enum DataFileWriter {
  /**
   * Column by column from the log's Arrow batches with an in-process DuckDB ({@link
   * DuckDbDataWriter}); rows it cannot write that way take the {@link #ICEBERG} path.
   */
  DUCKDB,
  /** Row by row through Iceberg's generic Parquet writer. */
  ICEBERG
}
