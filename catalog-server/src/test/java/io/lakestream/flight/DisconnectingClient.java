package io.lakestream.flight;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;

/**
 * A Flight SQL client run as a process of its own by {@link FlightSqlDisconnectIT}, which kills it
 * ({@code kill -9}) while its query runs on the server. Arguments: the server's Flight port, and
 * {@code fetch} (run {@link FlightSqlCancelTest#CROSS_JOIN} through JDBC and read its rows: the
 * server computes them while the client waits) or {@code execute} (only ask for the query's
 * FlightInfo, so that its result waits on the server to be fetched, and never fetch it). Prints
 * {@code started} once the query is asked for, then waits to be killed.
 */
public final class DisconnectingClient {
  private DisconnectingClient() {}

  public static void main(String[] args) throws Exception {
    int flightPort = Integer.parseInt(args[0]);
    switch (args[1]) {
      case "fetch" -> {
        Connection connection =
            DriverManager.getConnection(
                "jdbc:arrow-flight-sql://127.0.0.1:" + flightPort + "?useEncryption=false");
        Statement statement = connection.createStatement();
        System.out.println("started");
        System.out.flush();
        FlightSqlCancelTest.drain(statement, FlightSqlCancelTest.CROSS_JOIN);
      }
      case "execute" -> {
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(
                        new RootAllocator(), Location.forGrpcInsecure("127.0.0.1", flightPort))
                    .build());
        client.execute(FlightSqlCancelTest.CROSS_JOIN);
        System.out.println("started");
        System.out.flush();
      }
      default -> throw new IllegalArgumentException("Unknown mode " + args[1]);
    }
    while (true) {
      LockSupport.park(); // until killed
    }
  }
}
