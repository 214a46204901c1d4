/**
 * Internal: the stream RPC's wire format and its client connection, shared with the server; not for
 * applications, which use {@link io.lakestream.client.Connection}. The exception are {@link
 * io.lakestream.client.rpc.RpcException} and {@link io.lakestream.client.rpc.ErrorCode}: every
 * client call fails with the former, and its code tells an application what went wrong and whether
 * trying again may help ({@link io.lakestream.client.rpc.ErrorCode#retriable()}).
 *
 * <p>{@link io.lakestream.client.rpc.Wire} defines the frames and primitive encodings, {@link
 * io.lakestream.client.rpc.ApiKey} the requests, {@link io.lakestream.client.rpc.ErrorCode} the
 * errors, {@link io.lakestream.client.rpc.Messages} and {@link
 * io.lakestream.client.rpc.AdminMessages} the request and response bodies, and {@link
 * io.lakestream.client.rpc.RpcConnection} one pipelined TCP connection. Numbers of keys and codes
 * never change meaning; a changed body gets a new version.
 */
package io.lakestream.client.rpc;
