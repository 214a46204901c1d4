package io.lakestream.client.arrow;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Where each top-level column's field nodes and buffers sit in a record batch of a schema. Arrow
 * lays out a batch depth-first: for every top-level field, its node and buffers, then those of its
 * children, so a column owns one contiguous range of nodes and one of buffers.
 *
 * <p>View types and dictionary-encoded fields are refused: view types have a per-batch number of
 * buffers that Arrow's validator cannot check, and dictionaries would need dictionary batches,
 * which the log batch format does not carry.
 */
final class BatchLayout {
  private final Schema schema;
  private final int[] firstNode;
  private final int[] firstBuffer;

  private BatchLayout(Schema schema, int[] firstNode, int[] firstBuffer) {
    this.schema = schema;
    this.firstNode = firstNode;
    this.firstBuffer = firstBuffer;
  }

  /**
   * @throws IllegalArgumentException if the schema has a field the log batch format cannot hold
   */
  static BatchLayout of(Schema schema) {
    requireNonNull(schema, "schema is null");
    List<Field> fields = schema.getFields();
    int[] firstNode = new int[fields.size() + 1];
    int[] firstBuffer = new int[fields.size() + 1];
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      firstNode[i + 1] = firstNode[i] + nodeCount(field, field.getName());
      firstBuffer[i + 1] = firstBuffer[i] + bufferCount(field);
    }
    return new BatchLayout(schema, firstNode, firstBuffer);
  }

  Schema schema() {
    return schema;
  }

  int columnCount() {
    return firstNode.length - 1;
  }

  int nodeCount() {
    return firstNode[columnCount()];
  }

  int bufferCount() {
    return firstBuffer[columnCount()];
  }

  int firstNode(int column) {
    return firstNode[column];
  }

  int nodeCount(int column) {
    return firstNode[column + 1] - firstNode[column];
  }

  int firstBuffer(int column) {
    return firstBuffer[column];
  }

  int bufferCount(int column) {
    return firstBuffer[column + 1] - firstBuffer[column];
  }

  private static int nodeCount(Field field, String path) {
    if (field.getDictionary() != null) {
      throw new IllegalArgumentException(
          "Field " + path + " is dictionary-encoded; log batches do not carry dictionaries");
    }
    ArrowTypeID type = field.getType().getTypeID();
    if (type == ArrowTypeID.Utf8View
        || type == ArrowTypeID.BinaryView
        || type == ArrowTypeID.ListView
        || type == ArrowTypeID.LargeListView) {
      throw new IllegalArgumentException(
          "Field " + path + " has view type " + field.getType() + "; use Utf8, Binary or List");
    }
    int count = 1;
    for (Field child : field.getChildren()) {
      count += nodeCount(child, path + "." + child.getName());
    }
    return count;
  }

  private static int bufferCount(Field field) {
    int count = TypeLayout.getTypeBufferCount(field.getType());
    for (Field child : field.getChildren()) {
      count += bufferCount(child);
    }
    return count;
  }
}
