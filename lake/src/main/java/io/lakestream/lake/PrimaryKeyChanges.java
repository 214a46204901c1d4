package io.lakestream.lake;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.ChangeType;
import io.lakestream.client.ScanBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The net effect of a primary-key table's changelog range on its lake table, per partition and key:
 * the changes of a round folded in offset order, so that each key touched by the round ends as
 * either its final row or deleted.
 *
 * <p>What a key needs in the lake follows from its first and last change in the range:
 *
 * <ul>
 *   <li>a key whose first change is an insert ({@code +I}) did not exist before the range, so the
 *       lake holds no row of it: it needs no delete, only its final row if it still exists;
 *   <li>a key whose first change is an update ({@code -U}) or delete ({@code -D}) existed, so its
 *       old row in the lake must be removed by an equality delete on the identifier fields, and its
 *       final row (if any) added.
 * </ul>
 *
 * This holds because the lake table is exactly the fold of the log below the tiered offsets, and
 * the changelog is exact (a {@code +I} only ever follows the absence of the key).
 *
 * <p>Memory grows with the number of distinct keys a round touches. Not thread safe.
 */
public final class PrimaryKeyChanges {
  /** What a round does to one key. */
  public record KeyChange(Record finalRow, Record deleteKey, Record anyRow) {}

  private final LakeRecords records;
  private final Schema deleteSchema;
  private final int[] keyPositions;
  private final Map<String, Map<List<Object>, Entry>> partitions = new LinkedHashMap<>();
  private long changes;

  private static final class Entry {
    final boolean existedBefore;
    Record finalRow; // null while the key is deleted
    Record lastImage;

    Entry(boolean existedBefore) {
      this.existedBefore = existedBefore;
    }
  }

  /**
   * @param records turns log rows into records of the lake table's schema
   * @throws TieringException when the lake table has no identifier fields
   */
  public PrimaryKeyChanges(LakeRecords records) {
    this.records = requireNonNull(records, "records is null");
    Schema schema = records.schema();
    if (schema.identifierFieldIds().isEmpty()) {
      throw new TieringException(
          "A primary-key table's lake schema must have identifier fields; it has none");
    }
    this.deleteSchema = schema.select(schema.identifierFieldNames());
    List<Types.NestedField> columns = schema.columns();
    this.keyPositions =
        deleteSchema.columns().stream()
            .mapToInt(key -> columns.indexOf(schema.findField(key.fieldId())))
            .toArray();
    if (Arrays.stream(keyPositions).anyMatch(position -> position < 0)) {
      throw new TieringException(
          "The identifier fields of a primary-key table must be top-level columns: "
              + schema.identifierFieldNames());
    }
  }

  /** The identifier fields' ids, for the equality delete files. */
  public int[] equalityFieldIds() {
    return deleteSchema.columns().stream().mapToInt(Types.NestedField::fieldId).toArray();
  }

  /** The schema of an equality delete row: the identifier fields only. */
  public Schema deleteSchema() {
    return deleteSchema;
  }

  /** Folds rows {@code [first, end)} of a changelog batch of a partition, in offset order. */
  public void add(String partition, ScanBatch batch, int first, int end) {
    FieldVector[] vectors = records.vectorsOf(batch.root());
    Map<List<Object>, Entry> keys = partitions.computeIfAbsent(partition, p -> new HashMap<>());
    for (int row = first; row < end; row++) {
      ChangeType type = batch.changeType(row);
      List<Object> key = keyOf(vectors, row);
      Entry entry = keys.get(key);
      if (entry == null) {
        entry = new Entry(type != ChangeType.INSERT);
        keys.put(key, entry);
      }
      changes++;
      if (type == ChangeType.UPDATE_BEFORE) {
        // Always followed by its update-after in the same batch, which carries the row.
        continue;
      }
      Record record = records.record(vectors, row);
      entry.lastImage = record;
      entry.finalRow = type == ChangeType.DELETE ? null : record;
    }
  }

  /** Changelog rows folded so far. */
  public long changes() {
    return changes;
  }

  /**
   * Per partition, in the order partitions were first seen, what the round does to each key it
   * touched; keys that were inserted and deleted within the range are left out.
   */
  public Map<String, List<KeyChange>> keyChanges() {
    Map<String, List<KeyChange>> result = new LinkedHashMap<>();
    partitions.forEach(
        (partition, keys) -> {
          List<KeyChange> changed = new ArrayList<>();
          for (Map.Entry<List<Object>, Entry> key : keys.entrySet()) {
            Entry entry = key.getValue();
            if (!entry.existedBefore && entry.finalRow == null) {
              continue;
            }
            Record delete = entry.existedBefore ? deleteRecord(key.getKey()) : null;
            changed.add(new KeyChange(entry.finalRow, delete, entry.lastImage));
          }
          if (!changed.isEmpty()) {
            result.put(partition, changed);
          }
        });
    return result;
  }

  private List<Object> keyOf(FieldVector[] vectors, int row) {
    Object[] key = new Object[keyPositions.length];
    for (int i = 0; i < keyPositions.length; i++) {
      Object value = records.value(vectors, row, keyPositions[i]);
      // byte[] compares by identity; a buffer compares by content
      key[i] = value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
    }
    return Arrays.asList(key);
  }

  private Record deleteRecord(List<Object> key) {
    Record record = GenericRecord.create(deleteSchema);
    for (int i = 0; i < keyPositions.length; i++) {
      Object value = key.get(i);
      if (value instanceof ByteBuffer buffer
          && deleteSchema.columns().get(i).type().typeId() == Type.TypeID.FIXED) {
        value = buffer.array();
      }
      record.set(i, value);
    }
    return record;
  }
}
