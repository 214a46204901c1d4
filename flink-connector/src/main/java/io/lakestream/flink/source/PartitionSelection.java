package io.lakestream.flink.source;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The partitions a read is restricted to after Flink's planner pruned them ({@code
 * SupportsPartitionPushDown}): each a map of partition key to value as Flink sees it. The log
 * enumerator opens splits only of the partitions selected, those it finds at the start and those it
 * discovers later alike; a partition whose values are not among them is never read.
 *
 * <p>The server names a partition {@code key=value/key=value} with URL-encoded values ({@link
 * io.lakestream.client.Partitioning}); {@link #valuesOf} turns such a name into Flink's map.
 *
 * @param partitions the selected partitions' values
 */
record PartitionSelection(Set<Map<String, String>> partitions) implements Serializable {
  PartitionSelection {
    requireNonNull(partitions, "partitions is null");
    // Immutable and serializable (the log source ships it to the job).
    partitions = Set.copyOf(partitions.stream().map(HashMap::new).toList());
  }

  static PartitionSelection of(List<Map<String, String>> partitions) {
    return new PartitionSelection(Set.copyOf(partitions));
  }

  /** Whether the server's partition {@code name} is selected. */
  boolean includes(String name) {
    return partitions.contains(valuesOf(name));
  }

  /**
   * The values of a server partition name, by partition field.
   *
   * @throws IllegalArgumentException when a segment is not {@code key=value}
   */
  static Map<String, String> valuesOf(String name) {
    Map<String, String> values = new LinkedHashMap<>();
    if (name.isEmpty()) {
      return values;
    }
    for (String segment : name.split("/")) {
      int equals = segment.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException(
            "Partition name '" + name + "' has a segment that is not key=value: " + segment);
      }
      values.put(
          URLDecoder.decode(segment.substring(0, equals), StandardCharsets.UTF_8),
          URLDecoder.decode(segment.substring(equals + 1), StandardCharsets.UTF_8));
    }
    return values;
  }
}
