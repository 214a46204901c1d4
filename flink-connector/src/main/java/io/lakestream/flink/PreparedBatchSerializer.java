package io.lakestream.flink;

import io.lakestream.client.PreparedBatch;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The exactly-once sink's committables in checkpoint state. Version 1: partition (UTF), bucket
 * (int), whether it is a primary-key table's batch (boolean) and then its target columns (count,
 * ints) and operations (length, bytes), the framed batch (length, bytes). The framed batch carries
 * its writer id, sequence and CRC, checked again when read.
 */
final class PreparedBatchSerializer implements SimpleVersionedSerializer<PreparedBatch> {
  private static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(PreparedBatch batch) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(batch.batch().length + 64);
    out.writeUTF(batch.partition());
    out.writeInt(batch.bucket());
    out.writeBoolean(batch.keyValue());
    if (batch.keyValue()) {
      out.writeInt(batch.targetColumns().length);
      for (int column : batch.targetColumns()) {
        out.writeInt(column);
      }
      out.writeInt(batch.operations().length);
      out.write(batch.operations());
    }
    out.writeInt(batch.batch().length);
    out.write(batch.batch());
    return out.getCopyOfBuffer();
  }

  @Override
  public PreparedBatch deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException(
          "Cannot read a Lakestream sink committable of version "
              + version
              + " (this connector reads version "
              + VERSION
              + ")");
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    String partition = in.readUTF();
    int bucket = in.readInt();
    int[] targetColumns = null;
    byte[] operations = null;
    if (in.readBoolean()) {
      targetColumns = new int[in.readInt()];
      for (int i = 0; i < targetColumns.length; i++) {
        targetColumns[i] = in.readInt();
      }
      operations = new byte[in.readInt()];
      in.readFully(operations);
    }
    byte[] framed = new byte[in.readInt()];
    in.readFully(framed);
    try {
      return new PreparedBatch(partition, bucket, targetColumns, operations, framed);
    } catch (IllegalArgumentException e) {
      throw new IOException("Cannot read a Lakestream sink committable: " + e.getMessage(), e);
    }
  }
}
