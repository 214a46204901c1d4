/**
 * The OpenAPI document of Lakestream's own REST extensions and contract tests against the live
 * server.
 */
package io.lakestream.openapi;
