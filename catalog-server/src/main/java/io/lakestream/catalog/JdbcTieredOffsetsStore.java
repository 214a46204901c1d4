package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakestream.client.TablePath;
import io.lakestream.lake.offsets.TieredOffsets;
import io.lakestream.lake.offsets.TieredOffsetsStore;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.apache.iceberg.exceptions.ServiceFailureException;

/**
 * {@link TieredOffsetsStore} in the catalog database, beside the {@link JdbcMetadataStore} (table
 * {@code lakestream_tiered_offsets}, one row per table uuid). {@link #record} is one upsert whose
 * update only applies when the stored sequence number is not higher, so the database orders
 * concurrent writers.
 */
public final class JdbcTieredOffsetsStore implements TieredOffsetsStore {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String SELECT =
      "SELECT table_path, snapshot_id, sequence_number, offsets FROM lakestream_tiered_offsets"
          + " WHERE table_uuid = ?";
  private static final String UPSERT =
      "INSERT INTO lakestream_tiered_offsets (table_uuid, table_path, snapshot_id,"
          + " sequence_number, offsets, updated_millis) VALUES (?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (table_uuid) DO UPDATE SET table_path = excluded.table_path,"
          + " snapshot_id = excluded.snapshot_id, sequence_number = excluded.sequence_number,"
          + " offsets = excluded.offsets, updated_millis = excluded.updated_millis"
          + " WHERE lakestream_tiered_offsets.sequence_number <= excluded.sequence_number";
  private static final String DELETE = "DELETE FROM lakestream_tiered_offsets WHERE table_uuid = ?";

  private final DataSource dataSource;
  private final Lock writeLock;

  public JdbcTieredOffsetsStore(JdbcMetadataStore metadataStore) {
    requireNonNull(metadataStore, "metadataStore is null");
    this.dataSource = metadataStore.dataSource();
    this.writeLock = metadataStore.writeLock();
  }

  @Override
  public Optional<Entry> load(String tableUuid) {
    requireNonNull(tableUuid, "tableUuid is null");
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(SELECT)) {
      select.setString(1, tableUuid);
      try (ResultSet rows = select.executeQuery()) {
        if (!rows.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Entry(
                path(rows.getString(1)),
                rows.getLong(2),
                rows.getLong(3),
                TieredOffsets.parse(rows.getString(4))));
      }
    } catch (SQLException e) {
      throw new ServiceFailureException(
          e, "Cannot read the tiered offsets of table %s: %s", tableUuid, e.getMessage());
    }
  }

  @Override
  public void record(String tableUuid, Entry entry) {
    requireNonNull(tableUuid, "tableUuid is null");
    requireNonNull(entry, "entry is null");
    update(
        tableUuid,
        connection -> {
          try (PreparedStatement upsert = connection.prepareStatement(UPSERT)) {
            upsert.setString(1, tableUuid);
            upsert.setString(2, json(entry.table()));
            upsert.setLong(3, entry.snapshotId());
            upsert.setLong(4, entry.sequenceNumber());
            upsert.setString(5, entry.offsets().toJson());
            upsert.setLong(6, System.currentTimeMillis());
            upsert.executeUpdate();
          }
        });
  }

  @Override
  public void remove(String tableUuid) {
    requireNonNull(tableUuid, "tableUuid is null");
    update(
        tableUuid,
        connection -> {
          try (PreparedStatement delete = connection.prepareStatement(DELETE)) {
            delete.setString(1, tableUuid);
            delete.executeUpdate();
          }
        });
  }

  private interface Update {
    void run(Connection connection) throws SQLException;
  }

  private void update(String tableUuid, Update update) {
    writeLock.lock();
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      update.run(connection);
    } catch (SQLException e) {
      throw new ServiceFailureException(
          e, "Cannot write the tiered offsets of table %s: %s", tableUuid, e.getMessage());
    } finally {
      writeLock.unlock();
    }
  }

  private static String json(TablePath path) {
    ObjectNode node = JSON.createObjectNode();
    node.put("warehouse", path.warehouse());
    path.namespace().forEach(node.putArray("namespace")::add);
    node.put("name", path.name());
    return node.toString();
  }

  private static TablePath path(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      List<String> namespace = new ArrayList<>();
      node.path("namespace").forEach(level -> namespace.add(level.asText()));
      JsonNode warehouse = node.path("warehouse");
      return new TablePath(
          warehouse.isTextual() ? warehouse.asText() : null, namespace, node.path("name").asText());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "Corrupt table path in the tiered offsets record: " + json, e);
    }
  }
}
