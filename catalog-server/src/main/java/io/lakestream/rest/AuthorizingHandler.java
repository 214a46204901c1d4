package io.lakestream.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakestream.auth.Authorizer;
import io.lakestream.auth.Privilege;
import io.lakestream.storage.S3RequestSigner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.requests.CommitTransactionRequest;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.RemoteSignRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;

/**
 * Checks, before a route runs, that the request's principal holds the privilege the route needs on
 * every namespace it touches: reads need {@link Privilege#READ}, changes {@link Privilege#WRITE}. A
 * rename needs write on both namespaces, a transaction on every table's namespace, and creating a
 * namespace needs write on its parent (the warehouse for a top-level namespace). Signing an S3
 * request ({@link Route#REMOTE_SIGN}) needs read on the table's namespace for a GET or HEAD and
 * write for anything else, including a body that does not parse (the handler then answers 400).
 */
public final class AuthorizingHandler implements RestHandler {
  private final RestHandler delegate;
  private final Authorizer authorizer;
  private final ObjectMapper mapper;
  private final String defaultWarehouse;

  public AuthorizingHandler(
      RestHandler delegate, Authorizer authorizer, ObjectMapper mapper, String defaultWarehouse) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.authorizer = requireNonNull(authorizer, "authorizer is null");
    this.mapper = requireNonNull(mapper, "mapper is null");
    this.defaultWarehouse = requireNonNull(defaultWarehouse, "defaultWarehouse is null");
  }

  @Override
  public RestResponse handle(RestRequest request) {
    authorize(request);
    return delegate.handle(request);
  }

  /** Grants are held in memory, so checking them never waits. */
  @Override
  public Optional<RestResponse> handleWithoutWaiting(RestRequest request) {
    authorize(request);
    return delegate.handleWithoutWaiting(request);
  }

  private void authorize(RestRequest request) {
    if (request.route() != Route.CONFIG && !request.principal().unrestricted()) {
      Privilege privilege =
          request.route().mutating() || signsAWrite(request) ? Privilege.WRITE : Privilege.READ;
      String warehouse = request.warehouse() == null ? defaultWarehouse : request.warehouse();
      for (Namespace namespace : scopes(request)) {
        authorizer.check(request.principal(), privilege, warehouse, namespace);
      }
    }
  }

  /** The namespaces a request touches; the empty namespace stands for the whole warehouse. */
  private List<Namespace> scopes(RestRequest request) {
    return switch (request.route()) {
      case LIST_NAMESPACES ->
          List.of(
              request
                  .queryParameter("parent")
                  .map(parent -> Namespace.of(parent.split("\u001f", -1)))
                  .orElse(Namespace.empty()));
      case CREATE_NAMESPACE -> {
        CreateNamespaceRequest body = parse(request, CreateNamespaceRequest.class);
        yield List.of(
            body == null || body.namespace() == null
                ? Namespace.empty()
                : parent(body.namespace()));
      }
      case RENAME_TABLE, RENAME_VIEW -> {
        RenameTableRequest body = parse(request, RenameTableRequest.class);
        if (body == null || body.source() == null || body.destination() == null) {
          yield List.of(Namespace.empty());
        }
        yield List.of(body.source().namespace(), body.destination().namespace());
      }
      case COMMIT_TRANSACTION -> {
        CommitTransactionRequest body = parse(request, CommitTransactionRequest.class);
        List<Namespace> namespaces = new ArrayList<>();
        if (body == null || body.tableChanges() == null) {
          yield List.of(Namespace.empty());
        }
        for (UpdateTableRequest change : body.tableChanges()) {
          TableIdentifier identifier = change.identifier();
          namespaces.add(identifier == null ? Namespace.empty() : identifier.namespace());
        }
        yield namespaces;
      }
      default -> {
        String namespace = request.pathParameter("namespace");
        yield List.of(
            namespace == null ? Namespace.empty() : Namespace.of(namespace.split("\u001f", -1)));
      }
    };
  }

  private boolean signsAWrite(RestRequest request) {
    if (request.route() != Route.REMOTE_SIGN) {
      return false;
    }
    RemoteSignRequest body = parse(request, RemoteSignRequest.class);
    return body == null || body.method() == null || !S3RequestSigner.reads(body.method());
  }

  private static Namespace parent(Namespace namespace) {
    String[] levels = namespace.levels();
    return levels.length <= 1
        ? Namespace.empty()
        : Namespace.of(java.util.Arrays.copyOf(levels, levels.length - 1));
  }

  /** The body, or null when it does not parse (the handler then answers 400 itself). */
  private <T> T parse(RestRequest request, Class<T> type) {
    if (request.body().length == 0) {
      return null;
    }
    try {
      return mapper.readValue(request.body(), type);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
