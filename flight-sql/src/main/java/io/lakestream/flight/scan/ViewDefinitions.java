package io.lakestream.flight.scan;

import static io.lakestream.flight.scan.LakeViews.literal;
import static io.lakestream.flight.scan.LakeViews.quote;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * The SQL of the views {@link LakeViews} creates: {@code read_parquet} scans of a snapshot's files
 * by Iceberg field id, the union with a query's tail table, and a primary-key table's merge by key
 * (the lake's rows no later equality delete removes and whose key the tail does not change, then
 * each changed key's last change unless it is a delete). Only SQL text and the statements that
 * create the views; no state.
 */
final class ViewDefinitions {
  private ViewDefinitions() {}

  /** Prefix of the columns a primary-key table's view adds; a table with such a column has none. */
  static final String INTERNAL_PREFIX = "__lakestream_";

  /**
   * A primary-key tail row's change type (the codes of {@link io.lakestream.client.ChangeType}).
   */
  static final String CHANGE_COLUMN = INTERNAL_PREFIX + "change";

  static final String OFFSET_COLUMN = INTERNAL_PREFIX + "offset";

  static final String SEQUENCE_COLUMN = INTERNAL_PREFIX + "sequence";

  static final String LAST_COLUMN = INTERNAL_PREFIX + "last";

  private static final byte UPDATE_BEFORE = io.lakestream.client.ChangeType.UPDATE_BEFORE.code();

  private static final byte DELETE = io.lakestream.client.ChangeType.DELETE.code();

  /**
   * The statement that creates the view: {@code read_parquet} of {@code files} (by field id, in the
   * table's current schema), {@code UNION ALL} the tail table when it has rows or there is no file.
   * Without the tail table the view is one scan, into which DuckDB pushes join filters; it does not
   * push them through {@code UNION ALL}, even with an empty side.
   */
  static String createView(
      String target,
      Table table,
      List<String> types,
      List<String> files,
      String tail,
      boolean tailRows) {
    List<Types.NestedField> columns = table.schema().columns();
    String select = select(columns);
    StringBuilder view = new StringBuilder();
    if (!files.isEmpty()) {
      view.append(scan(table, types, columns, files, ""));
    }
    if (tailRows || files.isEmpty()) {
      view.append(files.isEmpty() ? "" : " UNION ALL ")
          .append(select)
          .append(" FROM ")
          .append(tail);
    }
    return "CREATE VIEW " + target + " AS " + view;
  }

  /**
   * The statement that creates a primary-key table's view: the lake's rows that no later equality
   * delete removes and whose key the tail does not change, {@code UNION ALL} the last change of
   * each key in the tail unless it is a delete. A key's changes are all in one bucket of one
   * partition, so its offsets order them.
   */
  static String createKeyedView(
      String target,
      Table table,
      List<String> types,
      SnapshotFiles.LakeFiles files,
      String tail,
      boolean tailRows) {
    List<Types.NestedField> columns = table.schema().columns();
    List<Types.NestedField> key = new ArrayList<>();
    for (Types.NestedField column : columns) {
      if (table.schema().identifierFieldIds().contains(column.fieldId())) {
        key.add(column);
      }
    }
    StringBuilder view = new StringBuilder();
    if (!files.data().isEmpty()) {
      boolean deletes = !files.deletes().isEmpty();
      for (Types.NestedField column : columns) {
        view.append(view.isEmpty() ? "SELECT " : ", ")
            .append("lakestream_lake.")
            .append(quote(column.name()));
      }
      view.append(" FROM (")
          .append(sequencedScan(table, types, columns, files.data(), deletes))
          .append(") AS lakestream_lake");
      // Anti joins rather than NOT EXISTS: DuckDB pushes the query's filters through them into the
      // lake's scans, not through the joins it makes of correlated subqueries.
      if (deletes) {
        view.append(" ANTI JOIN (")
            .append(sequencedScan(table, types, key, files.deletes(), true))
            .append(") AS lakestream_deleted ON ")
            .append(sameKey(key, "lakestream_deleted", "lakestream_lake"))
            .append(" AND lakestream_deleted.")
            .append(SEQUENCE_COLUMN)
            .append(" > lakestream_lake.")
            .append(SEQUENCE_COLUMN);
      }
      if (tailRows) {
        view.append(" ANTI JOIN ")
            .append(tail)
            .append(" AS lakestream_changed ON ")
            .append(sameKey(key, "lakestream_changed", "lakestream_lake"));
      }
    }
    if (tailRows || files.data().isEmpty()) {
      List<String> keyNames = key.stream().map(column -> quote(column.name())).toList();
      view.append(files.data().isEmpty() ? "" : " UNION ALL ")
          .append(select(columns))
          .append(" FROM (SELECT *, row_number() OVER (PARTITION BY ")
          .append(String.join(", ", keyNames))
          .append(" ORDER BY ")
          .append(OFFSET_COLUMN)
          .append(" DESC) AS ")
          .append(LAST_COLUMN)
          .append(" FROM ")
          .append(tail)
          .append(" WHERE ")
          .append(CHANGE_COLUMN)
          .append(" <> ")
          .append(UPDATE_BEFORE)
          .append(") WHERE ")
          .append(LAST_COLUMN)
          .append(" = 1 AND ")
          .append(CHANGE_COLUMN)
          .append(" <> ")
          .append(DELETE);
    }
    return "CREATE VIEW " + target + " AS " + view;
  }

  /**
   * The scans of {@code files}, one per sequence number with that number as column {@value
   * #SEQUENCE_COLUMN} when {@code sequenced}, else one scan of them all.
   */
  private static String sequencedScan(
      Table table,
      List<String> types,
      List<Types.NestedField> columns,
      List<SnapshotFiles.SequencedFile> files,
      boolean sequenced) {
    if (!sequenced) {
      return scan(
          table,
          types,
          columns,
          files.stream().map(SnapshotFiles.SequencedFile::path).toList(),
          "");
    }
    Map<Long, List<String>> bySequence = new TreeMap<>();
    for (SnapshotFiles.SequencedFile file : files) {
      bySequence.computeIfAbsent(file.sequence(), sequence -> new ArrayList<>()).add(file.path());
    }
    List<String> scans = new ArrayList<>();
    bySequence.forEach(
        (sequence, paths) ->
            scans.add(
                scan(
                    table,
                    types,
                    columns,
                    paths,
                    ", CAST(" + sequence + " AS BIGINT) AS " + SEQUENCE_COLUMN)));
    return String.join(" UNION ALL ", scans);
  }

  /**
   * A {@code SELECT} of {@code columns} (of the table's current schema, in DuckDB's {@code types}
   * of all its columns), then {@code extra} (more of the select list, or nothing), from {@code
   * read_parquet} of {@code files}.
   */
  private static String scan(
      Table table,
      List<String> types,
      List<Types.NestedField> columns,
      List<String> files,
      String extra) {
    List<Types.NestedField> all = table.schema().columns();
    boolean byName = table.schemas().size() == 1;
    StringBuilder scan = new StringBuilder();
    if (byName) {
      // The types the tail table and the query's shape have; a cast to the type a column already
      // has is none, so DuckDB still pushes filters on it into the scan.
      for (Types.NestedField column : columns) {
        String name = quote(column.name());
        scan.append(scan.isEmpty() ? "SELECT " : ", ")
            .append("CAST(")
            .append(name)
            .append(" AS ")
            .append(types.get(all.indexOf(column)))
            .append(") AS ")
            .append(name);
      }
    } else {
      scan.append(select(columns));
    }
    scan.append(extra).append(" FROM read_parquet([");
    for (int i = 0; i < files.size(); i++) {
      scan.append(i == 0 ? "" : ", ").append(literal(files.get(i)));
    }
    scan.append("], hive_partitioning = false, ");
    if (byName) {
      // A table that never changed its schema has its columns under their names in every file.
      // Matching by name makes DuckDB read each file's footer as it binds the view, so it knows
      // how many rows each table has and orders joins right; with a schema it reads none and
      // guesses (TPC-H Q4 at scale 1: 0.06 s against 0.12-0.19 s).
      scan.append("union_by_name = true)");
    } else {
      scan.append("schema = map {");
      for (int i = 0; i < columns.size(); i++) {
        Types.NestedField column = columns.get(i);
        scan.append(i == 0 ? "" : ", ")
            .append(column.fieldId())
            .append(": {name: ")
            .append(literal(column.name()))
            .append(", type: ")
            .append(literal(types.get(all.indexOf(column))))
            .append(", default_value: NULL}");
      }
      scan.append("})");
    }
    return scan.toString();
  }

  private static String select(List<Types.NestedField> columns) {
    StringBuilder select = new StringBuilder();
    for (Types.NestedField column : columns) {
      select.append(select.isEmpty() ? "SELECT " : ", ").append(quote(column.name()));
    }
    return select.toString();
  }

  private static String sameKey(List<Types.NestedField> key, String left, String right) {
    List<String> equal = new ArrayList<>();
    for (Types.NestedField column : key) {
      String name = quote(column.name());
      equal.add(left + "." + name + " = " + right + "." + name);
    }
    return String.join(" AND ", equal);
  }
}
