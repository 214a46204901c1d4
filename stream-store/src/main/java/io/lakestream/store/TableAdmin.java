package io.lakestream.store;

import io.lakestream.client.rpc.ApiKey;
import io.lakestream.client.rpc.RpcException;
import java.nio.ByteBuffer;

/**
 * The stream RPC's catalog requests: {@link ApiKey#CREATE_NAMESPACE}, {@link ApiKey#CREATE_TABLE},
 * {@link ApiKey#DROP_TABLE}, {@link ApiKey#LIST_TABLES} and {@link ApiKey#DESCRIBE_TABLE}. The
 * server backs it with the catalog its REST endpoint serves; the stream store only routes the
 * requests.
 *
 * <p>{@link #handle} decodes the body, checks the principal's grants, changes or reads the catalog
 * and returns the encoded response before it returns (catalog changes are short database
 * transactions). Each call is one catalog operation: atomic, and not idempotent (a create repeated
 * after a lost response fails with {@code ALREADY_EXISTS}). Thread safe.
 */
public interface TableAdmin {
  /**
   * @param principal the connection's principal, or null when authentication is off
   * @param key one of the catalog requests
   * @return the response body
   * @throws RpcException with the wire error code: {@code ALREADY_EXISTS}, {@code
   *     UNKNOWN_NAMESPACE}, {@code UNKNOWN_TABLE}, {@code INVALID_TABLE_DEFINITION}, {@code
   *     INVALID_REQUEST}, {@code NOT_AUTHORIZED}
   */
  ByteBuffer handle(String principal, ApiKey key, ByteBuffer body);
}
