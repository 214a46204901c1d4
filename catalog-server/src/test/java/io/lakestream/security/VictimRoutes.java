package io.lakestream.security;

import static java.util.Objects.requireNonNull;

import io.lakestream.rest.Route;

/**
 * For each REST {@link Route}, one concrete request aimed at the victim namespace {@code b}: its
 * table {@code b.t}, its view {@code b.v}. Changes carry bodies that would really change or copy
 * the victim if the server let them through (drop with purge, rename into {@code a}, properties
 * overwritten, a new table or namespace planted in {@code b}, the victim's metadata registered
 * anew).
 *
 * <p>The switch over the routes has no default branch, so a route added to {@link Route} does not
 * compile here until it has a case; the walk also checks at run time that it covered every route.
 */
final class VictimRoutes {
  /** A request: method, path below the server's base URI (with query), and body or null. */
  record Call(Route route, String method, String path, String body) {}

  static final String SCHEMA =
      "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
          + "{\"id\":1,\"name\":\"id\",\"type\":\"long\",\"required\":true},"
          + "{\"id\":2,\"name\":\"name\",\"type\":\"string\",\"required\":false}]}";

  private static final String SET_MARKER =
      "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\","
          + "\"updates\":{\"marker\":\"attacker\"}}]}";

  private final String tableMetadataLocation;
  private final String viewMetadataLocation;

  /**
   * @param tableMetadataLocation the current metadata file of {@code b.t} (what a register would
   *     copy)
   * @param viewMetadataLocation the current metadata file of {@code b.v}
   */
  VictimRoutes(String tableMetadataLocation, String viewMetadataLocation) {
    this.tableMetadataLocation =
        requireNonNull(tableMetadataLocation, "tableMetadataLocation is null");
    this.viewMetadataLocation =
        requireNonNull(viewMetadataLocation, "viewMetadataLocation is null");
  }

  /**
   * The request for a route.
   *
   * @param prefix the warehouse prefix to put in the path ({@code default}), or null for a path
   *     without one; {@code /v1/config} never takes one
   */
  Call call(Route route, String prefix) {
    String template = route.endpoint().path();
    String path =
        template
            .replace("{prefix}/", prefix == null || route == Route.CONFIG ? "" : prefix + "/")
            .replace("{namespace}", "b")
            .replace("{table}", "t")
            .replace("{view}", "v");
    String body =
        switch (route) {
          case CONFIG,
              LIST_NAMESPACES,
              LOAD_NAMESPACE,
              NAMESPACE_EXISTS,
              DROP_NAMESPACE,
              LIST_TABLES,
              LOAD_TABLE,
              TABLE_EXISTS,
              DROP_TABLE,
              TABLE_CREDENTIALS,
              LIST_VIEWS,
              LOAD_VIEW,
              VIEW_EXISTS,
              DROP_VIEW,
              TABLE_TIERING ->
              null;
          case CREATE_NAMESPACE -> "{\"namespace\":[\"b\",\"planted\"],\"properties\":{}}";
          case UPDATE_NAMESPACE ->
              "{\"removals\":[\"marker\"],\"updates\":{\"owner\":\"attacker\"}}";
          case CREATE_TABLE ->
              "{\"name\":\"planted\",\"schema\":"
                  + SCHEMA
                  + ",\"properties\":{\"lakestream.kind\":\"log\"}}";
          case REGISTER_TABLE ->
              "{\"name\":\"copy\",\"metadata-location\":\"" + tableMetadataLocation + "\"}";
          case UPDATE_TABLE, REPLACE_VIEW -> SET_MARKER;
          case RENAME_TABLE ->
              "{\"source\":{\"namespace\":[\"b\"],\"name\":\"t\"},"
                  + "\"destination\":{\"namespace\":[\"a\"],\"name\":\"moved\"}}";
          case REPORT_METRICS ->
              "{\"report-type\":\"commit-report\",\"table-name\":\"default.b.t\","
                  + "\"snapshot-id\":1,\"sequence-number\":1,\"operation\":\"append\","
                  + "\"metrics\":{}}";
          case COMMIT_TRANSACTION ->
              "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"b\"],\"name\":\"t\"},"
                  + "\"requirements\":[],\"updates\":[{\"action\":\"set-properties\","
                  + "\"updates\":{\"marker\":\"attacker\"}}]}]}";
          case CREATE_VIEW ->
              "{\"name\":\"planted\",\"schema\":"
                  + SCHEMA
                  + ",\"view-version\":{\"version-id\":1,\"timestamp-ms\":1,\"schema-id\":0,"
                  + "\"summary\":{},\"representations\":[{\"type\":\"sql\","
                  + "\"sql\":\"select 1\",\"dialect\":\"trino\"}],"
                  + "\"default-namespace\":[\"b\"]},\"properties\":{}}";
          case RENAME_VIEW ->
              "{\"source\":{\"namespace\":[\"b\"],\"name\":\"v\"},"
                  + "\"destination\":{\"namespace\":[\"a\"],\"name\":\"moved\"}}";
          case REGISTER_VIEW ->
              "{\"name\":\"copy\",\"metadata-location\":\"" + viewMetadataLocation + "\"}";
          case REMOTE_SIGN ->
              "{\"region\":\"us-east-1\",\"method\":\"GET\","
                  + "\"uri\":\"http://127.0.0.1:9/lake/b/t/data/a.parquet\",\"headers\":{}}";
        };
    String query =
        switch (route) {
          case LIST_NAMESPACES -> "?parent=b";
          case DROP_TABLE -> "?purgeRequested=true";
          default -> "";
        };
    return new Call(route, route.method(), path + query, body);
  }
}
