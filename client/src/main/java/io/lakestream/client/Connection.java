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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A client's connection to a Lakestream server's stream RPC: the entry point for writing to and
 * reading from streaming tables.
 *
 * <pre>{@code
 * try (Connection connection = Connection.open("127.0.0.1", 9123, null)) {
 *   Table clicks = connection.table(TablePath.of("analytics.clicks"));
 *   ...
 * }
 * }</pre>
 *
 * <p>Thread safe: writers and scanners of several threads share the connection (requests are
 * pipelined on one socket).
 */
public final class Connection implements AutoCloseable {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  private final RpcConnection rpc;

  private Connection(RpcConnection rpc) {
    this.rpc = requireNonNull(rpc, "rpc is null");
  }

  /**
   * Connects and, when a token is given, authenticates with it.
   *
   * @param token a bearer token from the catalog's token endpoint or the external issuer, or null
   *     when the server runs without authentication
   * @throws RpcException {@code NOT_AUTHENTICATED} for a bad token, {@code NETWORK_ERROR} when the
   *     server cannot be reached
   */
  public static Connection open(String host, int port, String token) {
    RpcConnection rpc;
    try {
      rpc = RpcConnection.open(host, port, Duration.ofSeconds(10));
    } catch (IOException e) {
      throw new RpcException(
          ErrorCode.NETWORK_ERROR,
          "Cannot connect to " + host + ":" + port + ": " + e.getMessage());
    }
    Connection connection = new Connection(rpc);
    if (token != null) {
      try {
        connection.call(ApiKey.AUTHENTICATE, new AuthenticateRequest(token).encode());
      } catch (RuntimeException e) {
        rpc.close();
        throw e;
      }
    }
    return connection;
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
    return new Table(this, path, MetadataResponse.decode(response));
  }

  CompletableFuture<ByteBuffer> send(ApiKey key, ByteBuffer... parts) {
    return rpc.send(key, parts);
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

  public boolean isOpen() {
    return rpc.isOpen();
  }

  @Override
  public void close() {
    rpc.close();
  }
}
