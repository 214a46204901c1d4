package io.lakestream.security;

import static io.lakestream.security.WalkClients.jdbcRows;
import static io.lakestream.security.WalkClients.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.client.Connection;
import io.lakestream.client.Lookuper;
import io.lakestream.client.Table;
import io.lakestream.client.TablePath;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.assertj.core.api.SoftAssertions;

/**
 * Everything an attacker might have read or changed of the victim namespace {@code b} (log table
 * {@code b.t}, primary-key table {@code b.kv} with keys 0 to {@value #KV_KEYS}, view {@code b.v}),
 * read with the rights to it.
 *
 * @param files every file under the victim namespace's directory, with its size
 * @param dataFiles the data files of {@code b.t}'s current snapshot, each marked when it is missing
 *     on disk
 * @param lookups {@code b.kv}'s row of each key, by the stream RPC
 * @param logRows the count and hash of the rows a Flight SQL query of {@code b.t} returns, or why
 *     it failed
 * @param kvRows the same for {@code b.kv}
 */
record VictimState(
    String namespaceProperties,
    List<String> tables,
    List<String> views,
    List<String> childNamespaces,
    String tableMetadata,
    String kvMetadata,
    String viewMetadata,
    Map<String, Long> files,
    List<String> dataFiles,
    long logOffset,
    long kvOffset,
    List<String> lookups,
    String logRows,
    String kvRows) {
  /** How many keys of {@code b.kv} are looked up. */
  static final int KV_KEYS = 10;

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Reads the victim's state.
   *
   * @param root a catalog client of a principal who may read {@code b}
   * @param warehouse the warehouse directory
   * @param rootToken a token that may read {@code b} through REST
   * @param ownerToken a token that may read {@code b} through the stream RPC and Flight SQL
   */
  static VictimState capture(
      WalkClients clients, RESTCatalog root, Path warehouse, String rootToken, String ownerToken)
      throws Exception {
    JsonNode namespace = json(clients.send("GET", "/v1/namespaces/b", null, rootToken));
    List<String> children = new ArrayList<>();
    json(clients.send("GET", "/v1/namespaces?parent=b", null, rootToken))
        .path("namespaces")
        .forEach(node -> children.add(node.toString()));
    Map<String, Long> files = new TreeMap<>();
    Path directory = warehouse.resolve("b");
    try (Stream<Path> walk = Files.walk(directory)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        String relative = directory.relativize(file).toString();
        // Tiering's own records of files it is about to write come and go with its rounds and
        // the orphan sweep (docs/tiering.md); every file they name is compared here.
        if (!relative.contains("/lakestream-tiering/")) {
          files.put(relative, Files.size(file));
        }
      }
    }
    List<String> dataFiles = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        root.loadTable(TableIdentifier.of("b", "t")).newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        String location = task.file().location();
        dataFiles.add(location + (Files.exists(Path.of(URI.create(location))) ? "" : " (missing)"));
      }
    }
    dataFiles.sort(null);
    List<String> lookups = new ArrayList<>();
    long logOffset;
    long kvOffset;
    try (Connection owner = Connection.open("127.0.0.1", clients.rpcPort(), ownerToken)) {
      logOffset = owner.table(TablePath.of("b.t")).latestOffset(0);
      Table kv = owner.table(TablePath.of("b.kv"));
      kvOffset = kv.latestOffset(0);
      Lookuper lookuper = kv.newLookuper();
      for (long id = 0; id < KV_KEYS; id++) {
        Object[] row = lookuper.lookup(id).get(10, TimeUnit.SECONDS);
        lookups.add(row == null ? id + ": none" : Arrays.toString(row));
      }
    }
    String ownerUrl = clients.jdbcUrl(ownerToken);
    return new VictimState(
        new TreeMap<>(JSON.convertValue(namespace.path("properties"), Map.class)).toString(),
        names(json(clients.send("GET", "/v1/namespaces/b/tables", null, rootToken))),
        names(json(clients.send("GET", "/v1/namespaces/b/views", null, rootToken))),
        children,
        metadataLocation(clients, "/v1/namespaces/b/tables/t", rootToken),
        metadataLocation(clients, "/v1/namespaces/b/tables/kv", rootToken),
        metadataLocation(clients, "/v1/namespaces/b/views/v", rootToken),
        files,
        dataFiles,
        logOffset,
        kvOffset,
        lookups,
        rowsOrError(ownerUrl, "SELECT id, name FROM b.t ORDER BY id"),
        rowsOrError(ownerUrl, "SELECT id, name FROM b.kv ORDER BY id"));
  }

  /** Adds to {@code softly} every difference of {@code now} from this state. */
  void checkUnchanged(VictimState now, SoftAssertions softly) {
    softly
        .assertThat(now.namespaceProperties())
        .as("namespace b's properties")
        .isEqualTo(namespaceProperties);
    softly.assertThat(now.tables()).as("tables of b").isEqualTo(tables);
    softly.assertThat(now.views()).as("views of b").isEqualTo(views);
    softly.assertThat(now.childNamespaces()).as("namespaces under b").isEqualTo(childNamespaces);
    softly.assertThat(now.tableMetadata()).as("b.t's metadata").isEqualTo(tableMetadata);
    softly.assertThat(now.kvMetadata()).as("b.kv's metadata").isEqualTo(kvMetadata);
    softly.assertThat(now.viewMetadata()).as("b.v's metadata").isEqualTo(viewMetadata);
    softly
        .assertThat(fileChanges(files, now.files()))
        .as("files under the directory of b: added, removed or resized")
        .isEmpty();
    softly.assertThat(now.dataFiles()).as("b.t's data files on disk").isEqualTo(dataFiles);
    softly.assertThat(now.logOffset()).as("b.t's log end").isEqualTo(logOffset);
    softly.assertThat(now.kvOffset()).as("b.kv's changelog end").isEqualTo(kvOffset);
    softly.assertThat(now.lookups()).as("b.kv's rows by key").isEqualTo(lookups);
    softly.assertThat(now.logRows()).as("rows of b.t").isEqualTo(logRows);
    softly.assertThat(now.kvRows()).as("rows of b.kv").isEqualTo(kvRows);
  }

  /** The names in a list-tables or list-views answer, sorted. */
  static List<String> names(JsonNode listing) {
    List<String> names = new ArrayList<>();
    listing.path("identifiers").forEach(identifier -> names.add(identifier.path("name").asText()));
    names.sort(null);
    return names;
  }

  private static String metadataLocation(WalkClients clients, String path, String token)
      throws Exception {
    return json(clients.send("GET", path, null, token)).path("metadata-location").asText();
  }

  /** The rows of a query, or the reason they cannot be read (such as a data file gone). */
  private static String rowsOrError(String url, String sql) {
    try {
      List<String> rows = jdbcRows(url, sql);
      // Compact, so that a difference reads at a glance: the count and the rows' hash.
      return rows.size() + " rows, hash " + rows.hashCode();
    } catch (SQLException e) {
      return "unreadable: " + e.getMessage().strip().lines().findFirst().orElse("");
    }
  }

  /** The files added, removed or resized between two listings, one line each. */
  private static List<String> fileChanges(Map<String, Long> before, Map<String, Long> now) {
    List<String> changes = new ArrayList<>();
    before.forEach(
        (file, size) -> {
          Long current = now.get(file);
          if (current == null) {
            changes.add("removed " + file);
          } else if (!current.equals(size)) {
            changes.add("resized " + file + " from " + size + " to " + current);
          }
        });
    now.keySet().stream()
        .filter(file -> !before.containsKey(file))
        .forEach(file -> changes.add("added " + file));
    return changes;
  }
}
