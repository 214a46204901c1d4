package io.lakestream.flink.source;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Checkpoint form of a {@link LogSplit}: partition, bucket, start and stop offsets. */
final class LogSplitSerializer implements SimpleVersionedSerializer<LogSplit> {
  static final LogSplitSerializer INSTANCE = new LogSplitSerializer();
  private static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(LogSplit split) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      write(out, split);
    }
    return bytes.toByteArray();
  }

  @Override
  public LogSplit deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException("Unknown log split version " + version);
    }
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(serialized))) {
      return read(in);
    }
  }

  static void write(DataOutputStream out, LogSplit split) throws IOException {
    out.writeUTF(split.partition());
    out.writeInt(split.bucket());
    out.writeLong(split.startOffset());
    out.writeLong(split.stopOffset());
  }

  static LogSplit read(DataInputStream in) throws IOException {
    return new LogSplit(in.readUTF(), in.readInt(), in.readLong(), in.readLong());
  }
}
