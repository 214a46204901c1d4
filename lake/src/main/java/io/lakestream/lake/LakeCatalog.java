package io.lakestream.lake;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.client.TablePath;
import io.lakestream.lake.iceberg.IcebergLakeCatalog;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * Where tiering finds the lake side of streaming tables: the Iceberg tables it commits to. The
 * server hands in its own catalogs in process; a tiering job elsewhere hands in a {@code
 * RESTCatalog} pointed at the server ({@link IcebergLakeCatalog} adapts either).
 *
 * <p>Implementations are thread safe: rounds of different tables load tables concurrently.
 */
public interface LakeCatalog {
  /**
   * Every streaming table (one whose {@code lakestream.kind} property is {@code log} or {@code
   * primary-key}), in every namespace, with its properties. A table created or dropped while the
   * listing runs may or may not be in it.
   *
   * @throws RuntimeException when the catalog cannot be listed; nothing is partially returned
   */
  List<StreamTable> listStreamTables();

  /**
   * A streaming table found by {@link #listStreamTables()}: its path and its table properties then.
   */
  record StreamTable(TablePath path, Map<String, String> properties) {
    public StreamTable {
      java.util.Objects.requireNonNull(path, "path is null");
      properties = Map.copyOf(properties);
    }

    /** The table's {@code lakestream.kind}: {@code log} or {@code primary-key}. */
    public String kind() {
      return properties.get(LakestreamProperties.KIND);
    }
  }

  /**
   * Loads a table's current metadata, fresh (not from a cache older than the last commit made
   * through this catalog). Commits through the returned table are atomic compare-and-swap
   * operations on the table's current metadata: a commit whose base is no longer current fails with
   * {@link org.apache.iceberg.exceptions.CommitFailedException} and changes nothing, and one whose
   * outcome is not known fails with {@link
   * org.apache.iceberg.exceptions.CommitStateUnknownException}.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException when the table is gone
   */
  Table loadTable(TablePath path);
}
