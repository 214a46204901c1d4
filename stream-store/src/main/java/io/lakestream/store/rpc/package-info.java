/**
 * The stream RPC's transport: {@link io.lakestream.store.rpc.RpcServer} reads request frames, hands
 * them to a {@link io.lakestream.store.rpc.RequestHandler} and writes the responses. It names wire
 * error codes only for errors of the framing itself (a frame too short or too large, an unknown API
 * key, the server busy, an internal error); a request's own errors come from the handler.
 *
 * <p>Depends on no other package of the stream store.
 */
package io.lakestream.store.rpc;
