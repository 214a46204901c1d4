package io.lakestream.store;

import io.lakestream.client.rpc.RpcException;
import java.util.List;

/**
 * Authentication and authorization of stream RPC connections, with the same tokens and grants as
 * the REST catalog. Thread safe.
 */
public interface StreamAccess {
  /** Whether a connection must authenticate before anything else. */
  boolean authenticationRequired();

  /**
   * @return the principal of a bearer token
   * @throws RpcException with {@code NOT_AUTHENTICATED} for a bad token
   */
  String authenticate(String token);

  /**
   * @param principal the connection's principal, or null when authentication is off
   * @throws RpcException with {@code NOT_AUTHORIZED} when the principal may not read (or write)
   */
  void check(String principal, StreamTable table, boolean write);

  /**
   * The same check on a namespace, for creating, dropping and listing its tables.
   *
   * @param warehouse the warehouse; null for the default warehouse
   * @param namespace the namespace levels; empty for the whole warehouse
   * @throws RpcException with {@code NOT_AUTHORIZED} when the principal may not read (or write)
   */
  void checkNamespace(String principal, String warehouse, List<String> namespace, boolean write);

  /** Everything allowed: authentication off. */
  static StreamAccess open() {
    return new StreamAccess() {
      @Override
      public boolean authenticationRequired() {
        return false;
      }

      @Override
      public String authenticate(String token) {
        return "anonymous";
      }

      @Override
      public void check(String principal, StreamTable table, boolean write) {}

      @Override
      public void checkNamespace(
          String principal, String warehouse, List<String> namespace, boolean write) {}
    };
  }
}
