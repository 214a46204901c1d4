package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * What a log source's enumerator checkpoints: the partitions whose buckets it has made splits of
 * (each split then lives in a reader's state, or in {@code unassigned}), and the splits not handed
 * to a reader yet.
 *
 * @param started whether the enumerator resolved its start positions (a restored one never does
 *     again)
 */
record LogEnumeratorState(boolean started, Set<String> partitions, List<LogSplit> unassigned) {
  LogEnumeratorState {
    partitions = Set.copyOf(requireNonNull(partitions, "partitions is null"));
    unassigned = List.copyOf(requireNonNull(unassigned, "unassigned is null"));
  }

  static final SimpleVersionedSerializer<LogEnumeratorState> SERIALIZER =
      new SimpleVersionedSerializer<>() {
        @Override
        public int getVersion() {
          return 1;
        }

        @Override
        public byte[] serialize(LogEnumeratorState state) throws IOException {
          ByteArrayOutputStream bytes = new ByteArrayOutputStream();
          try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeBoolean(state.started());
            out.writeInt(state.partitions().size());
            for (String partition : state.partitions()) {
              out.writeUTF(partition);
            }
            out.writeInt(state.unassigned().size());
            for (LogSplit split : state.unassigned()) {
              LogSplitSerializer.write(out, split);
            }
          }
          return bytes.toByteArray();
        }

        @Override
        public LogEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
          if (version != 1) {
            throw new IOException("Unknown log enumerator state version " + version);
          }
          try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            boolean started = in.readBoolean();
            int partitionCount = in.readInt();
            Set<String> partitions = new LinkedHashSet<>();
            for (int i = 0; i < partitionCount; i++) {
              partitions.add(in.readUTF());
            }
            int splitCount = in.readInt();
            List<LogSplit> splits = new ArrayList<>(splitCount);
            for (int i = 0; i < splitCount; i++) {
              splits.add(LogSplitSerializer.read(in));
            }
            return new LogEnumeratorState(started, partitions, splits);
          }
        }
      };
}
