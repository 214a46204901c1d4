package io.lakestream.store.rpc;

/** State of one RPC connection: who it acts for once authenticated. Confined to its connection. */
public final class Session {
  private volatile String principal;

  public String principal() {
    return principal;
  }

  public void authenticated(String principal) {
    this.principal = principal;
  }
}
