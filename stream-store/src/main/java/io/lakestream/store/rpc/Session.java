package io.lakestream.store.rpc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * State of one RPC connection: who it acts for once authenticated, and which tables it was lately
 * found allowed to read. Confined to its connection (its network thread and request threads).
 */
public final class Session {
  /** How long a successful read check is remembered for {@link #mayRead}. */
  static final long READ_CHECK_NANOS = 1_000_000_000L;

  private static final int MAX_REMEMBERED_TABLES = 1_000;

  private volatile String principal;
  private final Map<String, Long> readCheckedUntil = new ConcurrentHashMap<>();

  public String principal() {
    return principal;
  }

  public void authenticated(String principal) {
    this.principal = principal;
    readCheckedUntil.clear();
  }

  /** Records that the principal was allowed to read a table just now. */
  public void readChecked(String tableId) {
    if (readCheckedUntil.size() >= MAX_REMEMBERED_TABLES) {
      readCheckedUntil.clear();
    }
    readCheckedUntil.put(tableId, System.nanoTime() + READ_CHECK_NANOS);
  }

  /**
   * Whether the principal was allowed to read a table within the last {@link #READ_CHECK_NANOS}
   * (grants are seen as late as tables are, see {@code TableResolver#resolveById}).
   */
  public boolean mayRead(String tableId) {
    Long until = readCheckedUntil.get(tableId);
    return until != null && System.nanoTime() - until < 0;
  }
}
