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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A client's connection to a Lakestream server's stream RPC: the entry point for writing to and
 * reading from streaming tables, and for creating them ({@link #admin()}).
 *
 * <pre>{@code
 * try (Connection connection = Connection.open("lakestream://10.0.0.1:9123,10.0.0.2:9123")) {
 *   Table clicks = connection.table(TablePath.of("analytics.clicks"));
 *   ...
 * }
 * }</pre>
 *
 * <p><b>Addresses.</b> A connection is opened on one server ({@link #open(String, int)}) or on a
 * list of bootstrap addresses ({@link #open(String)}, see {@link ServerAddress} for the URI form):
 * they are tried in order until one connects and authenticates. A failed address is skipped after
 * at most {@code 10 s} (the connect timeout); a refused token fails at once, since every server
 * would refuse it.
 *
 * <p><b>Reconnecting.</b> When the socket fails (for example the server restarts), the requests in
 * flight on it fail with {@code NETWORK_ERROR}: their outcome is unknown. The next request opens a
 * new socket and authenticates again with the same token, trying the address it was connected to
 * first and then the other addresses in the list's order, and retrying the whole list with backoff
 * for up to {@link #RECONNECT_TIMEOUT}; only when that fails too does the request fail with {@code
 * NETWORK_ERROR}. It also looks up again every table this connection has looked up, because a
 * restarted server knows a table id only once a client has asked for the table by path. {@link
 * AppendWriter} resends its in-doubt batches (the server deduplicates them) and {@link LogScanner}
 * re-issues its fetches, so both keep working across a server restart.
 *
 * <p><b>Timeouts.</b> Connecting to one address may take up to 10 s. A call that waits for its
 * response (such as {@link #table}, the {@link Admin} calls and {@link Table}'s offset lookups)
 * fails with {@code NETWORK_ERROR} after 60 s without one; a reconnect gives up after {@link
 * #RECONNECT_TIMEOUT}.
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

  private final List<ServerAddress> addresses;
  private final Supplier<String> token;
  private volatile RpcConnection rpc;
  // Index in addresses of the server rpc is (or was last) connected to.
  private volatile int connectedTo;
  private volatile boolean closed;
  private final Set<TablePath> tables = ConcurrentHashMap.newKeySet();
  private final ResponseBufferPool responseBuffers =
      new ResponseBufferPool(MAX_KEPT_RESPONSE_BYTES);
  // Arrow schemas by their JSON text, shared by the Table objects of this connection: a table
  // looked up for every query (the Flight SQL server does) would otherwise parse its schema each
  // time with Arrow's JSON reader, 139 of ~1,050 sampled frames of the server's query path.
  private final Map<String, Schema> arrowSchemas = new ConcurrentHashMap<>();

  /** Schemas the connection keeps parsed; past this many it starts again from none. */
  static final int MAX_KEPT_SCHEMAS = 1024;

  /**
   * Bytes of fetch response buffers a connection keeps for its scanners: what one scanner has in
   * flight at most ({@link LogScanner}), so that a scanner reading at full speed allocates none.
   */
  static final long MAX_KEPT_RESPONSE_BYTES = 40L << 20;

  private Connection(
      List<ServerAddress> addresses, Supplier<String> token, RpcConnection rpc, int connectedTo) {
    this.addresses = List.copyOf(addresses);
    this.token = requireNonNull(token, "token is null");
    this.rpc = requireNonNull(rpc, "rpc is null");
    this.connectedTo = connectedTo;
  }

  /**
   * The Arrow schema a table's metadata gives as JSON, parsed once per connection: schemas are
   * immutable, so every table object of the connection shares it.
   *
   * @throws IOException when the text is not an Arrow schema
   */
  Schema arrowSchema(String json) throws IOException {
    Schema known = arrowSchemas.get(json);
    if (known != null) {
      return known;
    }
    Schema parsed = Schema.fromJSON(json);
    if (arrowSchemas.size() >= MAX_KEPT_SCHEMAS) {
      arrowSchemas.clear();
    }
    Schema raced = arrowSchemas.putIfAbsent(json, parsed);
    return raced != null ? raced : parsed;
  }

  /**
   * Connects to the first server of a connection URI that accepts the connection, without a token
   * (for a server that runs without authentication).
   *
   * @param uri {@code lakestream://host:port}, or several addresses {@code
   *     lakestream://host1:port1,host2:port2} tried in order (see {@link ServerAddress})
   * @return the open connection; close it when done
   * @throws IllegalArgumentException when the URI is malformed, naming what is wrong
   * @throws RpcException {@code NETWORK_ERROR} when no address can be reached, listing why for each
   */
  public static Connection open(String uri) {
    return open(uri, null);
  }

  /**
   * Connects as {@link #open(String)} does and authenticates with a token.
   *
   * @param uri {@code lakestream://host:port}, or several addresses {@code
   *     lakestream://host1:port1,host2:port2} tried in order (see {@link ServerAddress})
   * @param token a bearer token from the catalog's token endpoint or the external issuer, or null
   *     when the server runs without authentication
   * @return the open connection; close it when done
   * @throws IllegalArgumentException when the URI is malformed, naming what is wrong
   * @throws RpcException {@code NOT_AUTHENTICATED} for a bad token, {@code NETWORK_ERROR} when no
   *     address can be reached
   */
  public static Connection open(String uri, String token) {
    return openRenewing(uri, () -> token);
  }

  /**
   * Connects as {@link #open(String, String)} does, asking {@code token} for the token at every
   * connect and reconnect (see {@link #openRenewing(String, int, Supplier)}).
   *
   * @param uri {@code lakestream://host:port}, or several addresses {@code
   *     lakestream://host1:port1,host2:port2} tried in order (see {@link ServerAddress})
   * @param token gives a bearer token at every connect and reconnect, or null when the server runs
   *     without authentication; called on the thread that connects
   * @return the open connection; close it when done
   * @throws IllegalArgumentException when the URI is malformed, naming what is wrong
   * @throws RpcException {@code NOT_AUTHENTICATED} for a bad token, {@code NETWORK_ERROR} when no
   *     address can be reached
   */
  public static Connection openRenewing(String uri, Supplier<String> token) {
    return openRenewing(ServerAddress.parseUri(uri), token);
  }

  /**
   * Connects to one server without a token (for a server that runs without authentication).
   *
   * @param host the server's host name or IP address
   * @param port the server's stream RPC port
   * @return the open connection; close it when done
   * @throws RpcException {@code NETWORK_ERROR} when the server cannot be reached
   */
  public static Connection open(String host, int port) {
    return open(host, port, null);
  }

  /**
   * Connects to the first of {@code addresses} that accepts the connection and the token.
   *
   * @param addresses tried in order; also the order a reconnect tries them in, after the address
   *     last connected to
   * @param token gives a bearer token at every connect and reconnect, or null when the server runs
   *     without authentication; called on the thread that connects
   * @return the open connection; close it when done
   * @throws IllegalArgumentException when {@code addresses} is empty
   * @throws RpcException {@code NOT_AUTHENTICATED} for a bad token, {@code NETWORK_ERROR} when no
   *     address can be reached, listing why for each
   */
  public static Connection openRenewing(List<ServerAddress> addresses, Supplier<String> token) {
    requireNonNull(addresses, "addresses is null");
    requireNonNull(token, "token is null");
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("No server address to connect to");
    }
    List<String> problems = new ArrayList<>();
    String current = token.get();
    for (int i = 0; i < addresses.size(); i++) {
      ServerAddress address = addresses.get(i);
      try {
        return new Connection(addresses, token, connect(address, current), i);
      } catch (IOException e) {
        problems.add(address + ": " + e.getMessage());
      } catch (RpcException e) {
        if (!e.error().retriable()) {
          throw e;
        }
        problems.add(address + ": " + e.getMessage());
      }
    }
    throw new RpcException(
        ErrorCode.NETWORK_ERROR,
        addresses.size() == 1
            ? "Cannot connect to " + problems.get(0)
            : "Cannot connect to any of " + addresses + ": " + String.join("; ", problems));
  }

  /**
   * Connects and, when a token is given, authenticates with it. Unlike a reconnect, the first
   * connect is tried once.
   *
   * @param host the server's host name or IP address
   * @param port the server's stream RPC port
   * @param token a bearer token from the catalog's token endpoint or the external issuer, or null
   *     when the server runs without authentication
   * @return the open connection; close it when done
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
   * @param host the server's host name or IP address
   * @param port the server's stream RPC port
   * @param token gives a bearer token, or null when the server runs without authentication
   * @return the open connection; close it when done
   * @throws RpcException {@code NOT_AUTHENTICATED} for a bad token, {@code NETWORK_ERROR} when the
   *     server cannot be reached
   */
  public static Connection openRenewing(String host, int port, Supplier<String> token) {
    return openRenewing(List.of(new ServerAddress(host, port)), token);
  }

  /**
   * The addresses this connection connects to, in the order given.
   *
   * @return an immutable list of at least one address
   */
  public List<ServerAddress> addresses() {
    return addresses;
  }

  /** Opens a socket and authenticates on it. */
  private static RpcConnection connect(ServerAddress address, String token) throws IOException {
    RpcConnection rpc = RpcConnection.open(address.host(), address.port(), CONNECT_TIMEOUT);
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
        List<String> problems = new ArrayList<>();
        // The server last connected to first, then the others in the list's order.
        for (int attempt = 0; attempt < addresses.size() && fresh == null; attempt++) {
          int index = (connectedTo + attempt) % addresses.size();
          ServerAddress address = addresses.get(index);
          try {
            fresh = connect(address, token.get());
            lookUpTablesAgain(fresh);
            connectedTo = index;
          } catch (IOException e) {
            fresh = null;
            problems.add(address + ": " + e.getMessage());
          } catch (RpcException e) {
            fresh = null;
            problems.add(address + ": " + e.getMessage());
            if (!e.error().retriable()) {
              refused = e;
              break;
            }
          }
        }
        String problem = String.join("; ", problems);
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
                  + (addresses.size() == 1 ? addresses.get(0) : "any of " + addresses)
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
   * Looks up a streaming table. The connection remembers the path, and looks it up again after a
   * reconnect so that a restarted server knows the table's id.
   *
   * @param path the table's warehouse, namespace and name
   * @return a handle for writing and reading the table, sharing this connection
   * @throws RpcException {@code UNKNOWN_TABLE} when no streaming table has that path, {@code
   *     NETWORK_ERROR} when the connection is closed or cannot reconnect within {@link
   *     #RECONNECT_TIMEOUT}
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

  /**
   * Creating, listing and dropping namespaces and tables through this connection.
   *
   * @return a new admin handle sharing this connection; it needs no closing
   */
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
   *
   * @return {@code true} if not closed and the socket is connected
   */
  public boolean isOpen() {
    return !closed && rpc.isOpen();
  }

  /**
   * Closes the socket and ends a reconnect in progress. Requests in flight fail with {@code
   * NETWORK_ERROR} and later ones fail at once; writers, scanners and lookupers of this connection
   * stop working. Closing twice does nothing more.
   */
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
