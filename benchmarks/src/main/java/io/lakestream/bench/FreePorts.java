package io.lakestream.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Ports on the loopback address that were free a moment ago, for servers a benchmark starts. */
final class FreePorts {
  private FreePorts() {}

  /** {@code count} distinct ports, all held open together while picked so none repeats. */
  static int[] onLoopback(int count) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>(count);
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }
}
