package io.lakestream.store.kv;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The checkpoint directory of a tablet: {@code checkpoints/<offset>/} holds a RocksDB checkpoint of
 * the state durable up to log offset {@code offset}, and is complete once it holds the marker file
 * {@value #COMPLETE}, written and forced after RocksDB finished. A directory without the marker (a
 * crash mid-checkpoint) is ignored and deleted.
 */
final class KvCheckpoints {
  static final String COMPLETE = "LAKESTREAM-CHECKPOINT-COMPLETE";

  private KvCheckpoints() {}

  static Path path(Path checkpoints, long offset) {
    return checkpoints.resolve(Long.toString(offset));
  }

  static boolean isComplete(Path checkpoint) {
    return Files.isRegularFile(checkpoint.resolve(COMPLETE));
  }

  /** Marks a checkpoint complete, durably. */
  static void markComplete(Path checkpoint) throws IOException {
    try (FileChannel channel =
        FileChannel.open(
            checkpoint.resolve(COMPLETE),
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
      channel.write(
          ByteBuffer.wrap(checkpoint.getFileName().toString().getBytes(StandardCharsets.UTF_8)));
      channel.force(true);
    }
    forceDirectory(checkpoint);
    forceDirectory(checkpoint.getParent());
  }

  /** The newest complete checkpoint; deletes incomplete ones on the way. */
  static Optional<Path> newestComplete(Path checkpoints) throws IOException {
    List<Path> complete = complete(checkpoints);
    return complete.isEmpty() ? Optional.empty() : Optional.of(complete.getFirst());
  }

  /**
   * The offset of the newest complete checkpoint, or -1; only reads, so it may run while a
   * checkpoint is being written.
   */
  static long newestCompleteOffset(Path checkpoints) throws IOException {
    if (!Files.isDirectory(checkpoints)) {
      return -1;
    }
    long newest = -1;
    try (Stream<Path> listing = Files.list(checkpoints)) {
      for (Path path : listing.toList()) {
        long offset = offsetOf(path);
        if (offset > newest && isComplete(path)) {
          newest = offset;
        }
      }
    }
    return newest;
  }

  /** Deletes all but the newest {@code keep} complete checkpoints, and every incomplete one. */
  static void retainNewest(Path checkpoints, int keep) throws IOException {
    List<Path> complete = complete(checkpoints);
    for (Path old : complete.subList(Math.min(keep, complete.size()), complete.size())) {
      deleteRecursively(old);
    }
  }

  /** Complete checkpoints, newest first; incomplete ones and strays are deleted. */
  private static List<Path> complete(Path checkpoints) throws IOException {
    List<Path> complete = new ArrayList<>();
    try (Stream<Path> listing = Files.list(checkpoints)) {
      for (Path path : listing.toList()) {
        if (offsetOf(path) >= 0 && isComplete(path)) {
          complete.add(path);
        } else {
          deleteRecursively(path);
        }
      }
    }
    complete.sort(Comparator.comparingLong(KvCheckpoints::offsetOf).reversed());
    return complete;
  }

  private static long offsetOf(Path path) {
    try {
      return Long.parseLong(path.getFileName().toString());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Copies a checkpoint into an empty RocksDB directory: SST files (immutable) as hard links where
   * the file system allows, the rest as copies, so the live database never writes into a
   * checkpoint.
   */
  static void restore(Path checkpoint, Path target) throws IOException {
    Files.createDirectories(target);
    try (Stream<Path> listing = Files.list(checkpoint)) {
      for (Path file : listing.toList()) {
        String name = file.getFileName().toString();
        if (name.equals(COMPLETE)) {
          continue;
        }
        Path copy = target.resolve(name);
        if (name.endsWith(".sst")) {
          try {
            Files.createLink(copy, file);
            continue;
          } catch (UnsupportedOperationException | IOException e) {
            // No hard links on this file system: fall back to a copy.
          }
        }
        Files.copy(file, copy);
      }
    }
  }

  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path each : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(each);
      }
    }
  }

  private static void forceDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
