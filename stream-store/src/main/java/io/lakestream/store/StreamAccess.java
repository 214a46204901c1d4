package io.lakestream.store;

import io.lakestream.client.rpc.RpcException;

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
    };
  }
}
