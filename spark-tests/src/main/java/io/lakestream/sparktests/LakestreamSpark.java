package io.lakestream.sparktests;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * Builds a local-mode Spark session whose catalog {@code catalogName} is Iceberg's {@code
 * SparkCatalog} over Lakestream's Iceberg REST endpoint. Everything Spark writes of its own
 * (scratch space, the default warehouse) stays under one work directory, and Spark binds only to
 * the loopback address.
 */
public final class LakestreamSpark {
  private LakestreamSpark() {}

  /**
   * Creates (or returns the active) session. Catalog caching is off, so every statement reads the
   * table's metadata from the server rather than from Spark's memory.
   *
   * @param catalogName the SQL name of the catalog, e.g. {@code lake} in {@code lake.ns.table}
   * @param catalogUri the server's REST base URI, e.g. {@code http://127.0.0.1:8181}
   * @param workDirectory where Spark keeps its scratch files
   */
  public static SparkSession session(String catalogName, String catalogUri, Path workDirectory) {
    requireNonNull(catalogName, "catalogName is null");
    requireNonNull(catalogUri, "catalogUri is null");
    requireNonNull(workDirectory, "workDirectory is null");
    String catalog = "spark.sql.catalog." + catalogName;
    return SparkSession.builder()
        .master("local[2]")
        .appName("lakestream-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.local.dir", workDirectory.resolve("scratch").toString())
        .config("spark.sql.warehouse.dir", workDirectory.resolve("spark-warehouse").toString())
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(catalog, "org.apache.iceberg.spark.SparkCatalog")
        .config(catalog + ".type", "rest")
        .config(catalog + ".uri", catalogUri)
        .config(catalog + ".cache-enabled", "false")
        .getOrCreate();
  }
}
