/** Credentials for the stream RPC that engine connectors share. */
package io.lakestream.lake.auth;
