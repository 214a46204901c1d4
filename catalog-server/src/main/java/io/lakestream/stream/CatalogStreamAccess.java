package io.lakestream.stream;

import static java.util.Objects.requireNonNull;

import io.lakestream.auth.Authorizer;
import io.lakestream.auth.Principal;
import io.lakestream.auth.Privilege;
import io.lakestream.auth.TokenService;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.store.StreamAccess;
import io.lakestream.store.StreamTable;
import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NotAuthorizedException;

/** Stream RPC access with the catalog's tokens and grants: one token works on every endpoint. */
public final class CatalogStreamAccess implements StreamAccess {
  private final TokenService tokens;
  private final Authorizer authorizer;
  private final boolean required;
  private final String defaultWarehouse;

  /**
   * @param defaultWarehouse the warehouse a request means when it names none
   */
  public CatalogStreamAccess(
      TokenService tokens, Authorizer authorizer, boolean required, String defaultWarehouse) {
    this.tokens = requireNonNull(tokens, "tokens is null");
    this.authorizer = requireNonNull(authorizer, "authorizer is null");
    this.required = required;
    this.defaultWarehouse = requireNonNull(defaultWarehouse, "defaultWarehouse is null");
  }

  @Override
  public boolean authenticationRequired() {
    return required;
  }

  @Override
  public String authenticate(String token) {
    try {
      return tokens.validate(token).name();
    } catch (NotAuthorizedException e) {
      throw new RpcException(ErrorCode.NOT_AUTHENTICATED, e.getMessage());
    }
  }

  @Override
  public void check(String principal, StreamTable table, boolean write) {
    checkNamespace(principal, table.warehouse(), table.namespace(), write);
  }

  @Override
  public void checkNamespace(
      String principal, String warehouse, List<String> namespace, boolean write) {
    if (!required || TokenService.isInternal(principal)) {
      return; // internal components act with the server's own rights
    }
    try {
      authorizer.check(
          Principal.named(principal),
          write ? Privilege.WRITE : Privilege.READ,
          warehouse == null ? defaultWarehouse : warehouse,
          Namespace.of(namespace.toArray(String[]::new)));
    } catch (ForbiddenException e) {
      throw new RpcException(ErrorCode.NOT_AUTHORIZED, e.getMessage());
    }
  }
}
