package io.lakestream.client;

import static java.util.Objects.requireNonNull;

import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.Messages.AuthenticateRequest;
import io.lakestream.client.rpc.Messages.MetadataRequest;
import io.lakestream.client.rpc.Messages.MetadataResponse;
import io.lakestream.client.rpc.RpcConnection;
import io.lakestream.client.rpc.RpcException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A client's connection to a Lakestream server's stream RPC: the entry point for writing to and
 * reading from streaming tables, and for creating them ({@link #admin()}).
 *
 * <pre>{@code
 * try (Connection connection = Connection.open("127.0.0.1", 9123, null)) {
 *   Table clicks = connection.table(TablePath.of("analytics.clicks"));
 *   ...
 * }
 * }</pre>
 *
 * <p><b>Reconnecting.</b> When the socket fails (for example the server restarts), the requests in
 * flight on it fail with {@code NETWORK_ERROR}: their outcome is unknown. The next request opens a
 * new socket and authenticates again with the same token, retrying the connect with backoff for up
 * to {@link #RECONNECT_TIMEOUT}; only when that fails too does the request fail with {@code
 * NETWORK_ERROR}. It also looks up again every table this connection has looked up, because a
 * restarted server knows a table id only once a client has asked for the table by path. {@link
 * AppendWriter} resends its in-doubt batches (the server deduplicates them) and {@link LogScanner}
 * re-issues its fetches, so both keep working across a server restart.
 *
 * <p>Thread safe: writers and scanners of several threads share the connection (requests are
 * pipelined on one socket).
 */
public final class Connection implements AutoCloseable {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** How long a reconnect keeps trying before the request that needed it fails. */
  public static final Duration RECONNECT_TIMEOUT = Duration.ofSeconds(30);

  private final Object backoffSignal = new Object();
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(50);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

  private final String host;
  private final int port;
  private final Supplier<String> token;
  private volatile RpcConnection rpc;
  private volatile boolean closed;
  private final Set<TablePath> tables = ConcurrentHashMap.newKeySet();
  // Two per scanner fetching at full speed, for a few scanners at a time.
  private final ResponseBufferPool responseBuffers =
      new ResponseBufferPool(MAX_KEPT_RESPONSE_BUFFERS);

  /** Fetch response buffers a connection keeps for its scanners. */
  static final int MAX_KEPT_RESPONSE_BUFFERS = 4;

  private Connection(String host, int port, Supplier<String> token, RpcConnection rpc) {
    this.host = requireNonNull(host, "host is null");
    this.port = port;
    this.token = token;
    this.rpc = requireNonNull(rpc, "rpc is null");
  }

  /**
   * Connects and, when a token is given, authenticates with it. Unlike a reconnect, the first
   * connect is tried once.
   *
   * @param token a bearer token from the catalog's token endpoint or the external issuer, or null
   *     when the server runs without authentication
   * @throws RpcException {@code NOT_AUTHENTICATED} for a bad token, {@code NETWORK_ERROR} when the
   *     server cannot be reached
   */
  public static Connection open(String host, int port, String token) {
    return openRenewing(host, port, () -> token);
  }

  /**
   * Connects as {@link #open(String, int, String)} does, asking {@code token} for the token at
   * every connect and reconnect, so that a long-lived connection can present a fresh token after
   * the one it started with has expired.
   *
   * @param token gives a bearer token, or null when the server runs without authentication
   */
  public static Connection openRenewing(String host, int port, Supplier<String> token) {
    requireNonNull(token, "token is null");
    try {
      return new Connection(host, port, token, connect(host, port, token.get()));
    } catch (IOException e) {
      throw new RpcException(
          ErrorCode.NETWORK_ERROR,
          "Cannot connect to " + host + ":" + port + ": " + e.getMessage());
    }
  }

  /** Opens a socket and authenticates on it. */
  private static RpcConnection connect(String host, int port, String token) throws IOException {
    RpcConnection rpc = RpcConnection.open(host, port, CONNECT_TIMEOUT);
    if (token != null) {
      try {
        await(rpc.send(ApiKey.AUTHENTICATE, new AuthenticateRequest(token).encode()));
      } catch (RuntimeException e) {
        rpc.close();
        throw e;
      }
    }
    return rpc;
  }

  /**
   * The open socket, reconnecting first if the last one failed.
   *
   * @throws RpcException {@code NETWORK_ERROR} when no connect succeeded within {@link
   *     #RECONNECT_TIMEOUT} or the connection is closed, {@code NOT_AUTHENTICATED} when the server
   *     no longer accepts the token
   */
  private RpcConnection connected() {
    RpcConnection current = rpc;
    if (current.isOpen()) {
      return current;
    }
    synchronized (this) {
      if (closed) {
        throw new RpcException(ErrorCode.NETWORK_ERROR, "Connection closed");
      }
      if (rpc.isOpen()) {
        return rpc;
      }
      long deadline = System.nanoTime() + RECONNECT_TIMEOUT.toNanos();
      Duration backoff = FIRST_BACKOFF;
      while (true) {
        if (closed) {
          throw new RpcException(ErrorCode.NETWORK_ERROR, "Connection closed");
        }
        RpcConnection fresh = null;
        RpcException refused = null;
        String problem;
        try {
          fresh = connect(host, port, token.get());
          lookUpTablesAgain(fresh);
          problem = null;
        } catch (IOException e) {
          problem = e.getMessage();
        } catch (RpcException e) {
          refused = e;
          problem = e.getMessage();
        }
        if (fresh != null) {
          rpc = fresh;
          if (closed) {
            // close() ran during the connect and closed only the old socket.
            fresh.close();
            throw new RpcException(ErrorCode.NETWORK_ERROR, "Connection closed");
          }
          return fresh;
        }
        if (refused != null && !refused.error().retriable()) {
          throw refused;
        }
        if (System.nanoTime() + backoff.toNanos() > deadline) {
          throw new RpcException(
              ErrorCode.NETWORK_ERROR,
              "Cannot reconnect to "
                  + host
                  + ":"
                  + port
                  + " within "
                  + RECONNECT_TIMEOUT
                  + ": "
                  + problem);
        }
        try {
          // Waits out the backoff unless close() ends it early.
          synchronized (backoffSignal) {
            if (!closed) {
              backoffSignal.wait(backoff.toMillis());
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RpcException(ErrorCode.NETWORK_ERROR, "Interrupted while reconnecting");
        }
        Duration doubled = backoff.multipliedBy(2);
        backoff = doubled.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : doubled;
      }
    }
  }

  /**
   * Sends METADATA for every table looked up before, on a fresh socket, so that the server knows
   * their ids again. Tables that are gone now are skipped: requests on them fail on their own.
   */
  private void lookUpTablesAgain(RpcConnection fresh) throws IOException {
    List<CompletableFuture<ByteBuffer>> lookups = new ArrayList<>();
    for (TablePath path : tables) {
      lookups.add(
          fresh.send(
              ApiKey.METADATA,
              new MetadataRequest(path.warehouse(), path.namespace(), path.name()).encode()));
    }
    for (CompletableFuture<ByteBuffer> lookup : lookups) {
      try {
        await(lookup);
      } catch (RpcException e) {
        if (e.error().retriable()) {
          fresh.close();
          throw new IOException("Lost the connection again: " + e.getMessage(), e);
        }
      }
    }
  }

  /**
   * Looks up a streaming table.
   *
   * @throws RpcException {@code UNKNOWN_TABLE} when no streaming table has that path
   */
  public Table table(TablePath path) {
    ByteBuffer response =
        call(
            ApiKey.METADATA,
            new MetadataRequest(path.warehouse(), path.namespace(), path.name()).encode());
    Table table = new Table(this, path, MetadataResponse.decode(response));
    tables.add(path);
    return table;
  }

  /** Creating, listing and dropping tables through this connection. */
  public Admin admin() {
    return new Admin(this);
  }

  /** Reconnects now if the socket failed, so that what is sent next goes out on a fresh one. */
  void reconnectIfBroken() {
    connected();
  }

  /** Sends a request on the open socket, reconnecting first if the last one failed. */
  CompletableFuture<ByteBuffer> send(ApiKey key, ByteBuffer... parts) {
    return send(key, null, parts);
  }

  /** Like {@link #send(ApiKey, ByteBuffer...)}, reading the response into memory it supplies. */
  CompletableFuture<ByteBuffer> send(
      ApiKey key, io.lakestream.client.rpc.ResponseMemory memory, ByteBuffer... parts) {
    RpcConnection current;
    try {
      current = connected();
    } catch (RpcException e) {
      return CompletableFuture.failedFuture(e);
    }
    return current.send(key, memory, parts);
  }

  /** Sends a request and waits for its response, unwrapping the server's typed error. */
  ByteBuffer call(ApiKey key, ByteBuffer body) {
    return await(send(key, body));
  }

  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RpcException rpc) {
        throw rpc;
      }
      throw new RpcException(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(e.getCause()));
    } catch (TimeoutException e) {
      throw new RpcException(ErrorCode.NETWORK_ERROR, "No response within " + REQUEST_TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RpcException(ErrorCode.NETWORK_ERROR, "Interrupted while waiting for a response");
    }
  }

  /**
   * Whether the current socket is up. A connection whose socket failed reconnects on its next
   * request unless it was closed.
   */
  public boolean isOpen() {
    return !closed && rpc.isOpen();
  }

  @Override
  public void close() {
    closed = true;
    synchronized (backoffSignal) {
      backoffSignal.notifyAll();
    }
    rpc.close();
    responseBuffers.clear();
  }

  ResponseBufferPool responseBuffers() {
    return responseBuffers;
  }
}
