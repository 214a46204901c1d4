package io.lakestream.rest;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.catalog.WarehouseCatalog;
import io.lakestream.catalog.Warehouses;
import io.lakestream.storage.WarehouseStorage;
import io.lakestream.stream.StreamTableProperties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.requests.CommitTransactionRequest;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.CreateViewRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RegisterViewRequest;
import org.apache.iceberg.rest.requests.RemoteSignRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ImmutableLoadCredentialsResponse;
import org.apache.iceberg.rest.responses.ListNamespacesResponse;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * The Iceberg REST catalog as pure functions from {@link RestRequest} to {@link RestResponse}: each
 * route validates its input, calls Iceberg's {@link CatalogHandlers} on the warehouse's catalog,
 * and returns the response object. Serialization and the HTTP server live elsewhere.
 */
public final class IcebergRestHandlers implements RestHandler {
  /** Longest accepted namespace level, table or view name, in characters. */
  public static final int MAX_NAME_LENGTH = 255;

  private static final int MAX_NAMESPACE_DEPTH = 16;

  private final Warehouses warehouses;
  private final TableStorageAccess storageAccess;
  private final ObjectMapper mapper;
  private final java.time.Duration idempotencyLifetime;
  private final ResponseCache<LoadedTableKey, LoadedTable> loadTableResponses =
      new ResponseCache<>(256);

  /**
   * @param storage each warehouse's storage by name: what clients asking for delegated access get
   *     ({@link TableStorageAccess})
   * @param idempotencyLifetime advertised in {@code /v1/config} as how long idempotency keys are
   *     honoured
   */
  public IcebergRestHandlers(
      Warehouses warehouses,
      Map<String, WarehouseStorage> storage,
      ObjectMapper mapper,
      java.time.Duration idempotencyLifetime) {
    this.warehouses = requireNonNull(warehouses, "warehouses is null");
    this.storageAccess = new TableStorageAccess(storage, warehouses.defaultWarehouse());
    this.mapper = requireNonNull(mapper, "mapper is null");
    this.idempotencyLifetime = requireNonNull(idempotencyLifetime, "idempotencyLifetime is null");
  }

  /**
   * Serves one request. Exceptions propagate to the caller, which maps them with {@link
   * RestErrors}.
   */
  @Override
  public RestResponse handle(RestRequest request) {
    if (request.route() == Route.CONFIG) {
      return config(request);
    }
    WarehouseCatalog catalog = warehouses.catalog(request.warehouse());
    return switch (request.route()) {
      case CONFIG -> throw new IllegalStateException("handled above");
      case LIST_NAMESPACES ->
          RestResponse.ok(namespacePage(request, catalog.listNamespaces(parent(request))));
      case CREATE_NAMESPACE -> {
        CreateNamespaceRequest body = body(request, CreateNamespaceRequest.class);
        validateNamespace(body.namespace());
        RequestChecks.requireNoNulls("properties", body.properties());
        yield RestResponse.ok(CatalogHandlers.createNamespace(catalog, body));
      }
      case LOAD_NAMESPACE ->
          RestResponse.ok(CatalogHandlers.loadNamespace(catalog, namespace(request)));
      case NAMESPACE_EXISTS -> {
        CatalogHandlers.namespaceExists(catalog, namespace(request));
        yield RestResponse.noContent();
      }
      case DROP_NAMESPACE -> {
        CatalogHandlers.dropNamespace(catalog, namespace(request));
        yield RestResponse.noContent();
      }
      case UPDATE_NAMESPACE -> {
        UpdateNamespacePropertiesRequest body =
            body(request, UpdateNamespacePropertiesRequest.class);
        RequestChecks.requireNoNulls("removals", body.removals());
        RequestChecks.requireNoNulls("updates", body.updates());
        yield RestResponse.ok(
            CatalogHandlers.updateNamespaceProperties(catalog, namespace(request), body));
      }
      case LIST_TABLES ->
          RestResponse.ok(identifierPage(request, catalog.listTables(namespace(request))));
      case CREATE_TABLE -> {
        Namespace namespace = namespace(request);
        CreateTableRequest body = body(request, CreateTableRequest.class);
        validateName(body.name());
        StreamTableProperties.validateCreate(body.properties(), body.schema());
        if (body.stageCreate() && body.location() != null) {
          catalog.checkTableLocation(
              TableIdentifier.of(namespace, body.name()), body.location(), body.properties());
        }
        LoadTableResponse response =
            body.stageCreate()
                ? CatalogHandlers.stageTableCreate(catalog, namespace, body)
                : CatalogHandlers.createTable(catalog, namespace, body);
        TableStorageAccess.Access access =
            storageAccess.forTable(
                request,
                TableIdentifier.of(namespace, body.name()),
                response.tableMetadata().location());
        yield withTableETag(RestResponse.ok(withStorageAccess(response, access)), response, access);
      }
      case REGISTER_TABLE -> {
        RegisterTableRequest body = body(request, RegisterTableRequest.class);
        validateName(body.name());
        LoadTableResponse response =
            CatalogHandlers.registerTable(catalog, namespace(request), body);
        TableStorageAccess.Access access =
            storageAccess.forTable(
                request,
                TableIdentifier.of(namespace(request), body.name()),
                response.tableMetadata().location());
        yield withTableETag(RestResponse.ok(withStorageAccess(response, access)), response, access);
      }
      case LOAD_TABLE -> loadTable(catalog, request);
      case TABLE_EXISTS -> {
        CatalogHandlers.tableExists(catalog, table(request));
        yield RestResponse.noContent();
      }
      case UPDATE_TABLE -> {
        TableIdentifier identifier = table(request);
        UpdateTableRequest body = body(request, UpdateTableRequest.class);
        IdempotentHandler.answerOnCommit(
            committed -> tableResponse(committed, catalog, request, identifier));
        LoadTableResponse response =
            catalog.commitExclusively(
                identifier,
                () -> {
                  CommitUpdateChecks.check(
                      identifier, () -> catalog.currentTableMetadata(identifier), body.updates());
                  return CatalogHandlers.updateTable(catalog, identifier, body);
                });
        yield tableResponse(response.tableMetadata(), catalog, request, identifier);
      }
      case DROP_TABLE -> {
        boolean purge =
            request.queryParameter("purgeRequested").map(Boolean::parseBoolean).orElse(false);
        if (purge) {
          CatalogHandlers.purgeTable(catalog, table(request));
        } else {
          CatalogHandlers.dropTable(catalog, table(request));
        }
        yield RestResponse.noContent();
      }
      case RENAME_TABLE -> {
        RenameTableRequest body = body(request, RenameTableRequest.class);
        validateIdentifier(body.destination());
        CatalogHandlers.renameTable(catalog, body);
        yield RestResponse.noContent();
      }
      case REPORT_METRICS -> {
        body(request, ReportMetricsRequest.class);
        CatalogHandlers.tableExists(catalog, table(request));
        yield RestResponse.noContent();
      }
      case TABLE_CREDENTIALS -> {
        TableIdentifier identifier = table(request);
        TableMetadata metadata =
            catalog
                .currentTableMetadata(identifier)
                .orElseThrow(
                    () -> new NoSuchTableException("Table does not exist: %s", identifier));
        yield RestResponse.ok(
            ImmutableLoadCredentialsResponse.builder()
                .addAllCredentials(storageAccess.credentials(request, metadata.location()))
                .build());
      }
      case REMOTE_SIGN -> {
        TableIdentifier identifier = table(request);
        RemoteSignRequest body = body(request, RemoteSignRequest.class);
        TableMetadata metadata =
            catalog
                .currentTableMetadata(identifier)
                .orElseThrow(
                    () -> new NoSuchTableException("Table does not exist: %s", identifier));
        yield RestResponse.ok(storageAccess.sign(request, metadata, body))
            .withHeader("Cache-Control", "no-store");
      }
      case COMMIT_TRANSACTION -> {
        CommitTransactionRequest body = body(request, CommitTransactionRequest.class);
        for (UpdateTableRequest change : body.tableChanges()) {
          if (change.identifier() != null) {
            validateIdentifier(change.identifier());
            CommitUpdateChecks.check(
                change.identifier(),
                () -> catalog.currentTableMetadata(change.identifier()),
                change.updates());
          }
        }
        IdempotentHandler.answerOnCommit(committed -> RestResponse.noContent());
        catalog.commitTransaction(body.tableChanges());
        yield RestResponse.noContent();
      }
      case LIST_VIEWS ->
          RestResponse.ok(identifierPage(request, catalog.listViews(namespace(request))));
      case CREATE_VIEW -> {
        CreateViewRequest body = body(request, CreateViewRequest.class);
        validateName(body.name());
        yield RestResponse.ok(CatalogHandlers.createView(catalog, namespace(request), body));
      }
      case LOAD_VIEW -> RestResponse.ok(CatalogHandlers.loadView(catalog, view(request)));
      case VIEW_EXISTS -> {
        CatalogHandlers.viewExists(catalog, view(request));
        yield RestResponse.noContent();
      }
      case REPLACE_VIEW ->
          RestResponse.ok(
              CatalogHandlers.updateView(
                  catalog, view(request), body(request, UpdateTableRequest.class)));
      case DROP_VIEW -> {
        CatalogHandlers.dropView(catalog, view(request));
        yield RestResponse.noContent();
      }
      case RENAME_VIEW -> {
        RenameTableRequest body = body(request, RenameTableRequest.class);
        validateIdentifier(body.destination());
        CatalogHandlers.renameView(catalog, body);
        yield RestResponse.noContent();
      }
      case REGISTER_VIEW -> {
        RegisterViewRequest body = body(request, RegisterViewRequest.class);
        validateName(body.name());
        yield RestResponse.ok(CatalogHandlers.registerView(catalog, namespace(request), body));
      }
      case TABLE_TIERING ->
          throw new IllegalStateException("Route " + request.route() + " is not an Iceberg route");
    };
  }

  private RestResponse config(RestRequest request) {
    String warehouse =
        request.queryParameter("warehouse").filter(name -> !name.isBlank()).orElse(null);
    String name = warehouse == null ? warehouses.defaultWarehouse() : warehouse;
    if (!warehouses.names().contains(name)) {
      throw new BadRequestException(
          "Unknown warehouse '%s'; this server has %s", name, warehouses.names());
    }
    List<Endpoint> endpoints =
        Arrays.stream(Route.values())
            .filter(route -> route != Route.CONFIG && route.iceberg())
            .map(Route::endpoint)
            .toList();
    ConfigResponse response =
        ConfigResponse.builder()
            .withOverride("prefix", name)
            .withEndpoints(endpoints)
            .withIdempotencyKeyLifetime(idempotencyLifetime.toString())
            .build();
    // Iceberg's serializer leaves the lifetime out; the specification has it in the config.
    com.fasterxml.jackson.databind.node.ObjectNode body = mapper.valueToTree(response);
    body.put("idempotency-key-lifetime", idempotencyLifetime.toString());
    return RestResponse.ok(body);
  }

  /**
   * Answers loadTable without waiting when the table's pointer can be read at once, its answer for
   * that metadata file is already serialized (as it is after the first load or a commit) and the
   * file still exists (a local file system call; on object storage the load goes to a worker).
   */
  @Override
  public Optional<RestResponse> handleWithoutWaiting(RestRequest request) {
    if (request.route() != Route.LOAD_TABLE) {
      return Optional.empty();
    }
    WarehouseCatalog catalog = warehouses.catalog(request.warehouse());
    SnapshotMode mode = snapshotMode(request);
    if (request.header("X-Iceberg-Access-Delegation").isPresent()
        || !catalog.checksFilesLocally()) {
      return Optional.empty();
    }
    return catalog
        .currentMetadataLocationWithoutWaiting(table(request))
        .filter(catalog::metadataFileExists)
        .flatMap(
            location ->
                loadTableResponses.getIfPresent(
                    new LoadedTableKey(location, mode, TableStorageAccess.Access.NONE)))
        .map(loaded -> loadTableAnswer(request, loaded));
  }

  private RestResponse loadTable(WarehouseCatalog catalog, RestRequest request) {
    SnapshotMode mode = snapshotMode(request);
    TableIdentifier identifier = table(request);
    catalog.awaitRunningCommit(identifier);
    // One pointer read decides the version served; everything after works on that immutable
    // metadata file, so the body, its ETag and the cached bytes always agree.
    TableMetadata metadata =
        catalog
            .currentTableMetadata(identifier)
            .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", identifier));
    return loadTableAnswer(
        request,
        loadedTable(
            catalog,
            metadata,
            mode,
            storageAccess.forTable(request, identifier, metadata.location())));
  }

  private static RestResponse loadTableAnswer(RestRequest request, LoadedTable loaded) {
    Optional<String> ifNoneMatch = request.header("If-None-Match");
    if (ifNoneMatch.isPresent() && matches(ifNoneMatch.get(), loaded.etag())) {
      return new RestResponse(304, null, java.util.Map.of("ETag", loaded.etag()));
    }
    return new RestResponse(200, loaded.body(), java.util.Map.of("ETag", loaded.etag()));
  }

  private static SnapshotMode snapshotMode(RestRequest request) {
    return request
        .queryParameter("snapshots")
        .map(
            value -> {
              try {
                return SnapshotMode.valueOf(value.toUpperCase(Locale.ROOT));
              } catch (IllegalArgumentException e) {
                throw new BadRequestException(
                    "Invalid snapshots=%s: expected 'all' or 'refs'", value);
              }
            })
        .orElse(SnapshotMode.ALL);
  }

  /**
   * The loadTable answer for committed metadata (read from its file, or parsed from the bytes a
   * commit wrote to it), serialized once per metadata file, snapshot mode and storage access.
   */
  private LoadedTable loadedTable(
      WarehouseCatalog catalog,
      TableMetadata metadata,
      SnapshotMode mode,
      TableStorageAccess.Access access) {
    String location = metadata.metadataFileLocation();
    return loadTableResponses.get(
        new LoadedTableKey(location, mode, access),
        () -> {
          Optional<byte[]> json =
              mode == SnapshotMode.ALL && access.isEmpty()
                  ? catalog.cachedTableJson(location)
                  : Optional.empty();
          if (json.isPresent()) {
            return new LoadedTable(etag(location, mode), loadTableAnswer(location, json.get()));
          }
          TableMetadata served =
              mode == SnapshotMode.REFS
                  ? TableMetadata.buildFrom(metadata)
                      .withMetadataLocation(location)
                      .suppressHistoricalSnapshots()
                      .build()
                  : metadata;
          LoadTableResponse.Builder response =
              LoadTableResponse.builder().withTableMetadata(served);
          response.addAllConfig(access.config());
          access.credentials().forEach(response::addCredential);
          return new LoadedTable(etag(location + access.tag(), mode), serialize(response.build()));
        });
  }

  /**
   * A loadTable answer without config or credentials, built around the metadata file's own JSON
   * text: what serializing the parsed metadata would give, without serializing it again.
   */
  private byte[] loadTableAnswer(String location, byte[] metadataJson) {
    byte[] head = ("{\"metadata-location\":" + quoted(location) + ",\"metadata\":").getBytes(UTF_8);
    byte[] answer = Arrays.copyOf(head, head.length + metadataJson.length + 1);
    System.arraycopy(metadataJson, 0, answer, head.length, metadataJson.length);
    answer[answer.length - 1] = '}';
    return answer;
  }

  private String quoted(String text) {
    try {
      return mapper.writeValueAsString(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("Cannot quote a string", e);
    }
  }

  /**
   * What a loadTable answer depends on: the metadata file, the snapshot mode and the storage access
   * handed out (whose signer endpoint names the table, so two names of one file differ).
   */
  private record LoadedTableKey(
      String metadataLocation, SnapshotMode mode, TableStorageAccess.Access access) {}

  /** A serialized loadTable answer and its ETag. */
  private record LoadedTable(String etag, byte[] body) {}

  /** Adds the storage access for this request to a table response. */
  private static LoadTableResponse withStorageAccess(
      LoadTableResponse response, TableStorageAccess.Access access) {
    if (access.isEmpty()) {
      return response;
    }
    LoadTableResponse.Builder delegated =
        LoadTableResponse.builder()
            .withTableMetadata(response.tableMetadata())
            .addAllConfig(response.config())
            .addAllConfig(access.config());
    access.credentials().forEach(delegated::addCredential);
    return delegated.build();
  }

  private byte[] serialize(Object response) {
    try {
      return mapper.writeValueAsBytes(response);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialize " + response.getClass().getSimpleName(), e);
    }
  }

  /**
   * The answer of a table commit: the committed metadata with its ETag, as loadTable answers it.
   * The serialized answer goes to loadTable's cache, where the writers that lost the race to this
   * commit find it when they refresh.
   */
  private RestResponse tableResponse(
      TableMetadata committed,
      WarehouseCatalog catalog,
      RestRequest request,
      TableIdentifier identifier) {
    LoadedTable loaded =
        loadedTable(
            catalog,
            committed,
            SnapshotMode.ALL,
            storageAccess.forTable(request, identifier, committed.location()));
    return new RestResponse(200, loaded.body(), java.util.Map.of("ETag", loaded.etag()));
  }

  /**
   * Names a table answer as loadTable names the same content: by its metadata file location, with
   * with the storage access it carries (which changes the body), all snapshots.
   */
  private static RestResponse withTableETag(
      RestResponse response, LoadTableResponse table, TableStorageAccess.Access access) {
    String location = table.metadataLocation();
    String content = location == null ? "staged:" + table.tableMetadata().uuid() : location;
    return response.withHeader("ETag", etag(content + access.tag(), SnapshotMode.ALL));
  }

  /**
   * The entity tag of a loaded table: a digest of what names its content (the metadata file
   * location, immutable, and the storage access handed out) and of the snapshot mode.
   */
  static String etag(String location, SnapshotMode mode) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      digest.update(location.getBytes(StandardCharsets.UTF_8));
      digest.update((byte) 0);
      digest.update(mode.name().getBytes(StandardCharsets.UTF_8));
      return "\"" + HexFormat.of().formatHex(digest.digest(), 0, 16) + "\"";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean matches(String ifNoneMatch, String etag) {
    for (String candidate : ifNoneMatch.split(",")) {
      String trimmed = candidate.trim();
      if (trimmed.startsWith("W/")) {
        trimmed = trimmed.substring(2);
      }
      if (trimmed.equals(etag) || trimmed.equals("*")) {
        return true;
      }
    }
    return false;
  }

  private <T extends RESTRequest> T body(RestRequest request, Class<T> type) {
    if (request.body().length == 0) {
      throw new BadRequestException("Missing request body: expected a %s", type.getSimpleName());
    }
    T parsed;
    try {
      parsed = mapper.readValue(request.body(), type);
    } catch (IOException e) {
      throw new BadRequestException(
          "Malformed %s: %s", type.getSimpleName(), firstLine(e.getMessage()));
    } catch (RuntimeException e) {
      throw new BadRequestException(
          "Invalid %s: %s", type.getSimpleName(), firstLine(String.valueOf(e.getMessage())));
    }
    if (parsed == null) {
      throw new BadRequestException("Missing request body: expected a %s", type.getSimpleName());
    }
    try {
      parsed.validate();
    } catch (RuntimeException e) {
      throw new BadRequestException("Invalid %s: %s", type.getSimpleName(), e.getMessage());
    }
    return parsed;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable JSON";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static ListNamespacesResponse namespacePage(
      RestRequest request, List<Namespace> namespaces) {
    Pages.Page<Namespace> page =
        Pages.page(namespaces, Namespace::toString, pageToken(request), pageSize(request));
    return ListNamespacesResponse.builder()
        .addAll(page.items())
        .nextPageToken(page.nextToken())
        .build();
  }

  private static ListTablesResponse identifierPage(
      RestRequest request, List<TableIdentifier> identifiers) {
    Pages.Page<TableIdentifier> page =
        Pages.page(identifiers, TableIdentifier::name, pageToken(request), pageSize(request));
    return ListTablesResponse.builder()
        .addAll(page.items())
        .nextPageToken(page.nextToken())
        .build();
  }

  private static String pageToken(RestRequest request) {
    return request.queryParameter("pageToken").orElse(null);
  }

  private static Namespace parent(RestRequest request) {
    Namespace parent =
        request
            .queryParameter("parent")
            .map(IcebergRestHandlers::parseNamespace)
            .orElse(Namespace.empty());
    if (!parent.isEmpty()) {
      validateNamespace(parent);
    }
    return parent;
  }

  private static Integer pageSize(RestRequest request) {
    return request
        .queryParameter("pageSize")
        .map(
            value -> {
              try {
                int size = Integer.parseInt(value);
                if (size < 1) {
                  throw new NumberFormatException();
                }
                return size;
              } catch (NumberFormatException e) {
                throw new BadRequestException(
                    "Invalid pageSize=%s: expected a positive integer", value);
              }
            })
        .orElse(null);
  }

  private static Namespace namespace(RestRequest request) {
    Namespace namespace = parseNamespace(request.pathParameter("namespace"));
    validateNamespace(namespace);
    return namespace;
  }

  /** Namespaces arrive with their levels separated by the unit separator ({@code %1F}). */
  private static Namespace parseNamespace(String value) {
    if (value == null || value.isEmpty()) {
      return Namespace.empty();
    }
    return Namespace.of(value.split("\u001f", -1));
  }

  private static TableIdentifier table(RestRequest request) {
    String name = request.pathParameter("table");
    validateName(name);
    return TableIdentifier.of(namespace(request), name);
  }

  private static TableIdentifier view(RestRequest request) {
    String name = request.pathParameter("view");
    validateName(name);
    return TableIdentifier.of(namespace(request), name);
  }

  private static void validateIdentifier(TableIdentifier identifier) {
    validateNamespace(identifier.namespace());
    validateName(identifier.name());
  }

  public static void validateNamespace(Namespace namespace) {
    if (namespace.isEmpty()) {
      throw new BadRequestException("Invalid namespace: it has no levels");
    }
    if (namespace.length() > MAX_NAMESPACE_DEPTH) {
      throw new BadRequestException(
          "Invalid namespace: %d levels, at most %d allowed",
          namespace.length(), MAX_NAMESPACE_DEPTH);
    }
    for (String level : namespace.levels()) {
      validateName(level);
    }
  }

  /**
   * Names become path segments of table locations, so they may not escape their parent: no {@code
   * /}, {@code \}, control characters, {@code .} or {@code ..}.
   */
  public static void validateName(String name) {
    if (name == null || name.isEmpty()) {
      throw new BadRequestException("Invalid name: it is empty");
    }
    if (name.length() > MAX_NAME_LENGTH) {
      throw new BadRequestException(
          "Invalid name: %d characters, at most %d allowed", name.length(), MAX_NAME_LENGTH);
    }
    if (name.equals(".") || name.equals("..")) {
      throw new BadRequestException("Invalid name '%s'", name);
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == '\\' || Character.isISOControl(c)) {
        throw new BadRequestException(
            "Invalid name '%s': it contains '/', '\\' or a control character",
            name.replaceAll("\\p{Cntrl}", "?"));
      }
    }
  }
}
