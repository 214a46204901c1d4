package io.lakestream.flink.source;

import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.source.lookup.LookupOptions;

/**
 * The lookup-join options of a primary-key table (table options or {@code OPTIONS} hints): Flink's
 * standard {@link LookupOptions} for the partial cache and retries, plus {@code lookup.async}.
 */
public final class LookupJoinOptions {
  public static final ConfigOption<Boolean> ASYNC =
      ConfigOptions.key("lookup.async")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Look keys up asynchronously (many keys in flight per task) instead of one at a"
                  + " time");

  /** Every lookup option a streaming table takes. */
  public static final Set<ConfigOption<?>> ALL =
      Set.of(
          ASYNC,
          LookupOptions.CACHE_TYPE,
          LookupOptions.PARTIAL_CACHE_MAX_ROWS,
          LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
          LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
          LookupOptions.PARTIAL_CACHE_CACHE_MISSING_KEY,
          LookupOptions.MAX_RETRIES);

  private LookupJoinOptions() {}
}
