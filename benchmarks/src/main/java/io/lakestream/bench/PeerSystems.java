package io.lakestream.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The systems measured beside each other in {@code log-append-scan} and {@code keyed-state} (issue
 * 37): Lakestream through its ordinary client first, then every peer whose client and server class
 * paths were built. Each peer adds one line to {@link #all} and, when it can be missing, one to
 * {@link #unavailable}.
 */
final class PeerSystems {
  /** The peers a report compares Lakestream with, by the first word of their label. */
  static final List<String> PEERS = List.of("Kafka", "Fluss");

  private PeerSystems() {}

  /**
   * Lakestream first, then the available peers, in the order of {@link #PEERS}, their client JVMs
   * all with {@code clientHeapFlags}.
   */
  static List<PeerSystem> all(Path lakestreamHome, List<String> clientHeapFlags) {
    List<PeerSystem> systems = new ArrayList<>();
    systems.add(new LakestreamPeer(lakestreamHome, clientHeapFlags));
    try {
      systems.add(KafkaPeer.create(lakestreamHome, clientHeapFlags));
    } catch (IOException | IllegalStateException e) {
      // Reported by unavailable().
    }
    try {
      systems.add(FlussPeer.create(lakestreamHome, clientHeapFlags));
    } catch (IOException | IllegalStateException e) {
      // Reported by unavailable().
    }
    return systems;
  }

  /**
   * Why each peer of {@link #PEERS} that {@link #all} leaves out is missing, by peer name; a peer
   * without an entry here and absent from {@link #all} is reported as not built on this branch.
   */
  static Map<String, String> unavailable(Path lakestreamHome) {
    Map<String, String> unavailable = new LinkedHashMap<>();
    try {
      KafkaPeer.classPath(lakestreamHome);
    } catch (IOException | IllegalStateException e) {
      unavailable.put("Kafka", e.getMessage());
    }
    try {
      FlussPeer.unavailable(lakestreamHome).ifPresent(reason -> unavailable.put("Fluss", reason));
    } catch (IOException e) {
      unavailable.put("Fluss", e.getMessage());
    }
    return unavailable;
  }
}
