/**
 * The Java client of Lakestream's streaming tables: open a {@link io.lakestream.client.Connection},
 * create namespaces and tables with its {@link io.lakestream.client.Admin}, and use a {@link
 * io.lakestream.client.Table} to write ({@link io.lakestream.client.AppendWriter} for log tables,
 * {@link io.lakestream.client.UpsertWriter} for primary-key tables), read ({@link
 * io.lakestream.client.LogScanner}) and look rows up by key ({@link
 * io.lakestream.client.Lookuper}).
 *
 * <p>A connection is thread safe and meant to be shared; writers, scanners and lookupers are each
 * used by one thread at a time unless their class comment says otherwise. Tables are described with
 * {@link io.lakestream.client.TableDescriptor} and addressed by {@link
 * io.lakestream.client.TablePath}; rows travel as Arrow record batches ({@link
 * io.lakestream.client.RowBatch} to write, {@link io.lakestream.client.ScanBatch} to read).
 *
 * <p>The subpackages {@code rpc}, {@code arrow} and {@code batch} hold the wire format shared with
 * the server; they are public for the server's use, not for applications.
 */
package io.lakestream.client;
