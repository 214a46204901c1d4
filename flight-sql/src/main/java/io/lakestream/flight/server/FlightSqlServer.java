package io.lakestream.flight.server;

import static java.util.Objects.requireNonNull;

import io.grpc.netty.NettyServerBuilder;
import io.lakestream.client.Connection;
import io.lakestream.flight.FlightSqlAccess;
import io.lakestream.flight.query.QueryEngine;
import io.lakestream.flight.query.RunningQueries;
import io.lakestream.flight.scan.LakestreamTables;
import io.lakestream.flight.write.FlightIngest;
import io.lakestream.flight.write.IngestHeaders;
import io.lakestream.flight.write.SqlWrites;
import io.lakestream.scan.UnionScanPlanner;
import io.lakestream.scan.UnionScanReader;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The Arrow Flight SQL endpoint of a server: SQL queries over union reads of its streaming tables
 * (and plain Iceberg tables), catalog metadata, ingest of Arrow batches into log tables, with the
 * catalog's authentication. Reads streams through a stream RPC connection the caller owns. {@link
 * #close()} stops accepting, waits briefly for running calls and releases pending results.
 */
public final class FlightSqlServer implements AutoCloseable {
  /**
   * @param host address to listen on
   * @param port port to listen on; 0 picks a free one
   * @param readTimeout how long a union read waits for the log
   * @param config query limits, result timeout and TLS
   * @param scratch a directory of the endpoint's own for temporary files (cached log tails, query
   *     databases' sandboxes), emptied at start; best on the file system of the local warehouse,
   *     whose files queries read through hard links in it
   */
  public record Options(
      String host, int port, Duration readTimeout, FlightSqlConfig config, Path scratch) {
    public Options {
      requireNonNull(host, "host is null");
      requireNonNull(readTimeout, "readTimeout is null");
      requireNonNull(config, "config is null");
      requireNonNull(scratch, "scratch is null");
    }
  }

  private final BufferAllocator allocator;
  private final RunningQueries running;
  private final LakestreamFlightSqlProducer producer;
  private final FlightServer server;

  private final Network network;

  private FlightSqlServer(
      BufferAllocator allocator,
      RunningQueries running,
      LakestreamFlightSqlProducer producer,
      FlightServer server,
      Network network) {
    this.allocator = allocator;
    this.running = running;
    this.producer = producer;
    this.server = server;
    this.network = network;
  }

  /**
   * The endpoint's own Netty threads: gRPC takes them when it is given its listening channel (the
   * one {@link ClientConnections} watches connections with), and leaves them to their owner to
   * stop.
   */
  private record Network(EventLoopGroup boss, EventLoopGroup workers) implements AutoCloseable {
    Network() {
      this(
          new NioEventLoopGroup(1, new DefaultThreadFactory("flight-sql-accept", true)),
          new NioEventLoopGroup(0, new DefaultThreadFactory("flight-sql-network", true)));
    }

    @Override
    public void close() {
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }
  }

  /**
   * Starts the endpoint.
   *
   * @throws IOException when it cannot listen
   */
  public static FlightSqlServer start(
      Options options, LakestreamTables tables, Connection streams, FlightSqlAccess access)
      throws IOException {
    BufferAllocator allocator = new RootAllocator();
    ClientConnections connections = new ClientConnections();
    Network network = new Network();
    RunningQueries running =
        new RunningQueries(
            options.config().queryTimeout(), options.config().maxConcurrentQueriesPerPrincipal());
    try {
      QueryEngine engine =
          new QueryEngine(
              tables,
              new UnionScanPlanner(tables.lake(), streams),
              new UnionScanReader(streams, options.readTimeout()),
              options.readTimeout(),
              access,
              allocator,
              options.scratch(),
              new QueryEngine.Limits(
                  options.config().duckDbMemoryLimit(), options.config().queryThreads(), 64 * 1024),
              running);
      LakestreamFlightSqlProducer producer =
          new LakestreamFlightSqlProducer(
              engine,
              new FlightIngest(tables, streams, access, allocator),
              new SqlWrites(engine, tables, access, streams),
              tables,
              access,
              allocator,
              options.config().resultTimeout(),
              Clock.systemUTC(),
              ServerVersion.get());
      Optional<FlightSqlConfig.Tls> tls = options.config().tls();
      FlightServer.Builder builder =
          FlightServer.builder(
                  allocator,
                  tls.isPresent()
                      ? Location.forGrpcTls(options.host(), options.port())
                      : Location.forGrpcInsecure(options.host(), options.port()),
                  producer)
              .middleware(IngestHeaders.KEY, IngestHeaders.FACTORY)
              .transportHint(
                  "grpc.builderConsumer",
                  (Consumer<NettyServerBuilder>)
                      netty ->
                          netty
                              .channelFactory(connections::serverChannel)
                              .bossEventLoopGroup(network.boss())
                              .workerEventLoopGroup(network.workers())
                              .intercept(connections.interceptor()));
      if (tls.isPresent()) {
        builder.useTls(tls.get().certificateChain().toFile(), tls.get().privateKey().toFile());
      }
      if (access.authenticationRequired()) {
        builder.headerAuthenticator(new TokenAuthenticator(access));
      }
      FlightServer server = builder.build().start();
      return new FlightSqlServer(allocator, running, producer, server, network);
    } catch (IOException | RuntimeException e) {
      running.close();
      network.close();
      allocator.close();
      throw e;
    }
  }

  /** The port the endpoint listens on. */
  public int port() {
    return server.getPort();
  }

  /** Bytes of Arrow memory the Flight SQL service (results, ingest, scans) holds now. */
  public long arrowAllocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  /**
   * How many SQL queries run now: admitted and not yet released (a result waiting to be fetched or
   * being streamed counts).
   */
  public int runningQueries() {
    return running.running();
  }

  /**
   * How many of the {@link #runningQueries} compute their rows now (their statement runs), as
   * opposed to being planned or waiting for their result to be fetched.
   */
  public int computingQueries() {
    return running.computing();
  }

  @Override
  public void close() {
    running.close(); // running queries stop, so that the calls serving them end
    server.shutdown();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      server.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close();
    network.close();
    try {
      allocator.close();
    } catch (IllegalStateException e) {
      // buffers of calls cut off by the shutdown; the process or server is going away
    }
  }
}
