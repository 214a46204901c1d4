package io.lakestream.flink;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * The options of a {@code 'type'='lakestream'} catalog, declared once. {@code uri} and {@code
 * rpc-address} are required; without {@code token} or {@code credential} the catalog connects
 * anonymously, which a server with authentication refuses.
 */
public final class LakestreamOptions {
  /** The server's Iceberg REST endpoint, e.g. {@code http://127.0.0.1:8181}. */
  public static final ConfigOption<String> URI =
      ConfigOptions.key("uri")
          .stringType()
          .noDefaultValue()
          .withDescription("The Lakestream server's Iceberg REST endpoint, e.g. http://host:8181");

  /** The server's stream RPC, {@code host:port}. */
  public static final ConfigOption<String> RPC_ADDRESS =
      ConfigOptions.key("rpc-address")
          .stringType()
          .noDefaultValue()
          .withDescription("The Lakestream server's stream RPC address, host:port");

  /** A bearer token for both the REST endpoint and the stream RPC. */
  public static final ConfigOption<String> TOKEN =
      ConfigOptions.key("token")
          .stringType()
          .noDefaultValue()
          .withDescription("A bearer token (instead of credential)");

  /** OAuth2 client credentials, {@code client-id:client-secret}, exchanged for tokens. */
  public static final ConfigOption<String> CREDENTIAL =
      ConfigOptions.key("credential")
          .stringType()
          .noDefaultValue()
          .withDescription("OAuth2 client credentials client-id:client-secret (instead of token)");

  /** The warehouse; the server's default warehouse without it. */
  public static final ConfigOption<String> WAREHOUSE =
      ConfigOptions.key("warehouse")
          .stringType()
          .noDefaultValue()
          .withDescription("The warehouse (the server's default warehouse when not set)");

  /** The database (namespace) a {@code USE CATALOG} starts in. */
  public static final ConfigOption<String> DEFAULT_DATABASE =
      ConfigOptions.key("default-database")
          .stringType()
          .defaultValue("default")
          .withDescription("The database (namespace) USE CATALOG starts in");

  /**
   * How the sink writes: {@code at-least-once} (the default) sends rows as they come and flushes
   * them before each checkpoint, so a restore may write rows again; {@code exactly-once} sends the
   * rows of a checkpoint once it completes, with writer ids and sequences kept in the checkpoint,
   * so a restore writes no row twice (rows become visible only at checkpoints). A table option of
   * {@code 'connector'='lakestream'} tables and, through an {@code OPTIONS} hint, of catalog
   * tables.
   */
  public static final ConfigOption<DeliveryGuarantee> SINK_DELIVERY_GUARANTEE =
      ConfigOptions.key("sink.delivery-guarantee")
          .enumType(DeliveryGuarantee.class)
          .defaultValue(DeliveryGuarantee.AT_LEAST_ONCE)
          .withDescription(
              "at-least-once (rows sent as they come, flushed at checkpoints; a restore may write"
                  + " rows again) or exactly-once (rows sent once their checkpoint completes; a"
                  + " restore writes no row twice)");

  private LakestreamOptions() {}
}
