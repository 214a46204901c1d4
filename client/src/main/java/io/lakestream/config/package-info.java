/**
 * Typed configuration shared by the server's modules: {@link io.lakestream.config.ConfigKey} names
 * one key with its default, parser and description, {@link io.lakestream.config.Configuration}
 * resolves layered values (defaults, file, environment, command line) and fails at start-up with a
 * {@link io.lakestream.config.ConfigException} naming a bad value, and {@link
 * io.lakestream.config.Durations} and {@link io.lakestream.config.Sizes} parse the value formats.
 */
package io.lakestream.config;
