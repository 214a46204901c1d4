package io.lakestream.tiering;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.util.LocationUtil;

/**
 * The durable record of the data files tiering is about to write into a table, which is what lets
 * {@link OrphanFiles} delete the files of a round that died before its commit and nothing else.
 *
 * <p>Before a writer of a round writes its first file, it records its operation id (the {@code
 * tiering-<uuid>} that {@code OutputFileFactory} puts into the name of every file it makes, see
 * {@link LakeFiles}): one small file, {@code <table location>/lakestream-tiering/<table
 * uuid>/<operation id>}, written atomically, whose text is the data location the files go to. A
 * data file belongs to a record when its name carries the record's operation id; nothing else names
 * files with that random id, so the record names exactly the files that writer wrote.
 *
 * <p>Records are kept under the table's own location and keyed by the table's UUID, so a table
 * placed at another table's location (which the catalog refuses, but an older catalog did not) sees
 * none of the other table's records. A record outlives its round's commit; the sweep deletes it
 * once it is older than the orphan age and every file it names is either committed or deleted.
 *
 * <p>Stateless and thread safe.
 */
final class TieringWrites {
  /** The directory below a table's location that holds the records. */
  static final String DIRECTORY = "lakestream-tiering";

  private static final Pattern OPERATION_ID =
      Pattern.compile(
          LakeFiles.OPERATION_PREFIX
              + "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  /** A record: its location, the operation id it names, and when it was written (epoch millis). */
  record Recorded(String location, String operationId, long createdAtMillis) {
    Recorded {
      requireNonNull(location, "location is null");
      requireNonNull(operationId, "operationId is null");
    }
  }

  private TieringWrites() {}

  /**
   * Records, durably, that tiering is about to write data files named with {@code operationId} into
   * {@code table}. Returns once the record is stored; a failure throws and the caller must write
   * nothing.
   *
   * @throws UncheckedIOException or another runtime exception of the file IO
   */
  static void record(Table table, String operationId, String dataLocation) {
    if (!OPERATION_ID.matcher(operationId).matches()) {
      throw new IllegalArgumentException("Not a tiering operation id: " + operationId);
    }
    try (PositionOutputStream out =
        table.io().newOutputFile(directory(table) + "/" + operationId).createOrOverwrite()) {
      out.write(dataLocation.getBytes(UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot record the tiering files " + operationId + " of " + table.name(), e);
    }
  }

  /** The records of a table, as its file IO lists them; none if the directory does not exist. */
  static List<Recorded> list(Table table, SupportsPrefixOperations io) {
    List<Recorded> records = new ArrayList<>();
    for (FileInfo file : io.listPrefix(directory(table) + "/")) {
      String name = file.location().substring(file.location().lastIndexOf('/') + 1);
      if (OPERATION_ID.matcher(name).matches()) {
        records.add(new Recorded(file.location(), name, file.createdAtMillis()));
      }
    }
    return records;
  }

  /** The operation id in a tiering file's name, or null if its name carries none. */
  static String operationId(String fileLocation) {
    String name = fileLocation.substring(fileLocation.lastIndexOf('/') + 1);
    Matcher matcher = OPERATION_ID.matcher(name);
    return matcher.find() ? matcher.group() : null;
  }

  /** Where the records of a table are: below its location, keyed by its UUID. */
  static String directory(Table table) {
    return LocationUtil.stripTrailingSlash(table.location()) + "/" + DIRECTORY + "/" + table.uuid();
  }
}
