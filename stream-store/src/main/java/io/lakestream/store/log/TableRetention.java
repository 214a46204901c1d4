package io.lakestream.store.log;

import io.lakestream.client.LakestreamProperties;
import io.lakestream.config.ConfigKey;
import io.lakestream.config.Configuration;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A table's log retention time: its {@value #PROPERTY} property, or the server's {@code
 * log.retention}. Retention never removes rows that are not tiered yet or that a primary-key
 * table's state still needs (see {@link LogManager.RetentionFloor}).
 */
public final class TableRetention {
  /** The table property. */
  public static final String PROPERTY = LakestreamProperties.LOG_RETENTION;

  /** The shortest retention a table may ask for. */
  public static final Duration MIN = Duration.ofSeconds(1);

  private static final ConfigKey<Duration> KEY =
      ConfigKey.duration(PROPERTY, Duration.ofDays(7), "How long the table's log keeps rows");

  private TableRetention() {}

  /**
   * The retention time a table's properties ask for.
   *
   * @param tableProperties the table's properties
   * @param serverDefault the server's {@code log.retention}
   * @return the table's retention time
   * @throws IllegalArgumentException naming the property and value when it is not a duration of at
   *     least {@link #MIN}
   */
  public static Duration of(Map<String, String> tableProperties, Duration serverDefault) {
    String raw = tableProperties.get(PROPERTY);
    if (raw == null) {
      return serverDefault;
    }
    Duration retention;
    try {
      retention =
          Configuration.builder(List.of(KEY))
              .layer("table", Map.of(PROPERTY, raw))
              .build()
              .get(KEY);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Invalid " + PROPERTY + " '" + raw + "': expected a duration such as 12h or 7d", e);
    }
    if (retention.compareTo(MIN) < 0) {
      throw new IllegalArgumentException(
          "Invalid " + PROPERTY + " '" + raw + "': the shortest retention is 1s");
    }
    return retention;
  }
}
