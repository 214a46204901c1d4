package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Moves or copies rows of a log batch into a data file writer's memory and schema ({@link
 * DuckDbDataWriter}): buffers already in that memory change owner without a copy; others are copied
 * buffer by buffer, never row by row.
 *
 * <p>Not thread safe; used by one round.
 */
final class ArrowRowCopier {
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private final BufferAllocator allocator;

  /**
   * @param arrowSchema the schema of the copies, one field per table column
   * @param allocator the memory the copies live in
   */
  ArrowRowCopier(org.apache.arrow.vector.types.pojo.Schema arrowSchema, BufferAllocator allocator) {
    this.arrowSchema = requireNonNull(arrowSchema, "arrowSchema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  /**
   * A copy of rows {@code [first, end)} of the vectors, in this writer's memory and schema: named
   * as the table's columns, nulls where a vector is missing.
   */
  VectorSchemaRoot copy(FieldVector[] vectors, int first, int end) {
    int rows = end - first;
    List<FieldVector> copies = new ArrayList<>(vectors.length);
    try {
      for (int i = 0; i < vectors.length; i++) {
        Field field = arrowSchema.getFields().get(i);
        FieldVector source = vectors[i];
        if (source == null) {
          FieldVector nulls = field.createVector(allocator);
          nulls.allocateNew();
          nulls.setValueCount(rows);
          copies.add(nulls);
          continue;
        }
        if (source.getAllocator().getRoot() == allocator.getRoot()) {
          // Same memory: the rows' buffers change owner (a part of a batch is sliced off).
          TransferPair move = source.getTransferPair(field, allocator);
          if (first == 0 && end == source.getValueCount()) {
            move.transfer();
          } else {
            move.splitAndTransfer(first, rows);
          }
          copies.add((FieldVector) move.getTo());
          continue;
        }
        FieldVector slice = source;
        TransferPair split = null;
        if (first != 0 || end != source.getValueCount()) {
          split = source.getTransferPair(source.getAllocator());
          split.splitAndTransfer(first, rows);
          slice = (FieldVector) split.getTo();
        }
        try {
          copies.add(copyBuffers(slice, field, rows));
        } finally {
          if (split != null) {
            slice.close();
          }
        }
      }
    } catch (RuntimeException e) {
      copies.forEach(FieldVector::close);
      throw e;
    }
    VectorSchemaRoot root = new VectorSchemaRoot(arrowSchema.getFields(), copies, rows);
    return root;
  }

  /** A vector in this writer's allocator holding the same buffers' bytes. */
  private FieldVector copyBuffers(FieldVector source, Field field, int rows) {
    FieldVector target = field.createVector(allocator);
    List<ArrowBuf> buffers = source.getFieldBuffers();
    List<ArrowBuf> copied = new ArrayList<>(buffers.size());
    try {
      for (ArrowBuf buffer : buffers) {
        long length = buffer.readableBytes();
        ArrowBuf copy = allocator.buffer(Math.max(length, 1));
        copy.setBytes(0, buffer, 0, length);
        copy.writerIndex(length);
        copied.add(copy);
      }
      target.loadFieldBuffers(
          new org.apache.arrow.vector.ipc.message.ArrowFieldNode(rows, source.getNullCount()),
          copied);
    } finally {
      copied.forEach(ArrowBuf::close); // the vector holds its own references now
    }
    return target;
  }
}
