package io.lakestream.rest;

import java.util.List;
import java.util.Locale;
import org.apache.iceberg.rest.Endpoint;

/**
 * The REST routes this server implements. Each Iceberg route names Iceberg's own {@link Endpoint},
 * so the list advertised by {@code GET /v1/config} is exactly the Iceberg routes served.
 * Lakestream's own routes (documented in the {@code openapi} module) are served under the same
 * prefixes, auth and error mapping, but not advertised: Iceberg clients would not know them.
 */
public enum Route {
  CONFIG(Endpoint.create("GET", "/v1/config")),
  LIST_NAMESPACES(Endpoint.V1_LIST_NAMESPACES),
  CREATE_NAMESPACE(Endpoint.V1_CREATE_NAMESPACE),
  LOAD_NAMESPACE(Endpoint.V1_LOAD_NAMESPACE),
  NAMESPACE_EXISTS(Endpoint.V1_NAMESPACE_EXISTS),
  DROP_NAMESPACE(Endpoint.V1_DELETE_NAMESPACE),
  UPDATE_NAMESPACE(Endpoint.V1_UPDATE_NAMESPACE),
  LIST_TABLES(Endpoint.V1_LIST_TABLES),
  CREATE_TABLE(Endpoint.V1_CREATE_TABLE),
  REGISTER_TABLE(Endpoint.V1_REGISTER_TABLE),
  LOAD_TABLE(Endpoint.V1_LOAD_TABLE),
  TABLE_EXISTS(Endpoint.V1_TABLE_EXISTS),
  UPDATE_TABLE(Endpoint.V1_UPDATE_TABLE),
  DROP_TABLE(Endpoint.V1_DELETE_TABLE),
  RENAME_TABLE(Endpoint.V1_RENAME_TABLE),
  REPORT_METRICS(Endpoint.V1_REPORT_METRICS),
  TABLE_CREDENTIALS(Endpoint.V1_TABLE_CREDENTIALS),
  /**
   * Signs one S3 request inside the table's locations (remote signing): a POST that changes nothing
   * in the catalog, authorized as a read or a write by the method of the request it signs.
   */
  REMOTE_SIGN(Endpoint.V1_TABLE_REMOTE_SIGN),
  COMMIT_TRANSACTION(Endpoint.V1_COMMIT_TRANSACTION),
  LIST_VIEWS(Endpoint.V1_LIST_VIEWS),
  CREATE_VIEW(Endpoint.V1_CREATE_VIEW),
  LOAD_VIEW(Endpoint.V1_LOAD_VIEW),
  VIEW_EXISTS(Endpoint.V1_VIEW_EXISTS),
  REPLACE_VIEW(Endpoint.V1_UPDATE_VIEW),
  DROP_VIEW(Endpoint.V1_DELETE_VIEW),
  RENAME_VIEW(Endpoint.V1_RENAME_VIEW),
  REGISTER_VIEW(Endpoint.V1_REGISTER_VIEW),
  /** Lakestream: how far a streaming table is tiered ({@code TieringStatusHandler}). */
  TABLE_TIERING(
      Endpoint.create("GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/tiering"), false);

  private final Endpoint endpoint;
  private final String method;
  private final boolean mutating;
  private final List<String> segments;
  private final String metricName;
  private final boolean iceberg;

  Route(Endpoint endpoint) {
    this(endpoint, true);
  }

  Route(Endpoint endpoint, boolean iceberg) {
    this.endpoint = endpoint;
    this.iceberg = iceberg;
    this.method = endpoint.httpMethod().toUpperCase(Locale.ROOT);
    // REPORT_METRICS and REMOTE_SIGN cannot be named in their own constructors; mutating()
    // excludes them.
    this.mutating = method.equals("POST") || method.equals("DELETE");
    // "/v1/{prefix}/namespaces/{namespace}" -> [namespaces, {namespace}]: the version and the
    // optional prefix are matched by the router.
    this.segments = List.of(endpoint.path().replaceFirst("^/v1/(\\{prefix\\}/)?", "").split("/"));
    this.metricName = name().toLowerCase(Locale.ROOT);
  }

  public Endpoint endpoint() {
    return endpoint;
  }

  public String method() {
    return method;
  }

  /**
   * Whether the route is part of the Iceberg REST specification (and so advertised by {@code
   * /v1/config}), rather than one of Lakestream's own.
   */
  public boolean iceberg() {
    return iceberg;
  }

  /**
   * Whether the route changes the catalog (and so honours idempotency keys, and needs write on its
   * namespace). {@link #REMOTE_SIGN} does not: it needs read or write by what it signs.
   */
  public boolean mutating() {
    return mutating && this != REPORT_METRICS && this != REMOTE_SIGN;
  }

  /** The route's label in the server's metrics: its name in lower case. */
  public String metricName() {
    return metricName;
  }

  /** The path after {@code /v1/} and the optional prefix, split into segments. */
  List<String> segments() {
    return segments;
  }
}
