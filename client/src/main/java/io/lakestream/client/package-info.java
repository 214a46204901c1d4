/**
 * The Java client of Lakestream's streaming tables: open a {@link io.lakestream.client.Connection},
 * create namespaces and tables with its {@link io.lakestream.client.Admin}, and use a {@link
 * io.lakestream.client.Table} to write ({@link io.lakestream.client.AppendWriter} for log tables,
 * {@link io.lakestream.client.UpsertWriter} for primary-key tables), read ({@link
 * io.lakestream.client.LogScanner}) and look rows up by key ({@link
 * io.lakestream.client.Lookuper}).
 *
 * <p>{@code Connection}, {@code Admin}, {@code Table}, the writers and {@code Lookuper} are thread
 * safe and meant to be shared; a {@code LogScanner} and a {@link
 * io.lakestream.client.StateSnapshot} are used by one thread at a time. Tables are described with
 * {@link io.lakestream.client.TableDescriptor} and addressed by {@link
 * io.lakestream.client.TablePath}; rows are written as plain Java values (or through a {@link
 * io.lakestream.client.RowAccessor}) and read as Arrow batches ({@link
 * io.lakestream.client.ScanBatch}).
 *
 * <p>A request that fails throws (or completes its future with) {@link
 * io.lakestream.client.rpc.RpcException}, whose {@link io.lakestream.client.rpc.ErrorCode} names
 * the condition; arguments that are wrong on their face throw {@link IllegalArgumentException}
 * before anything is sent. Apart from those two, the subpackages {@code rpc}, {@code arrow} and
 * {@code batch} hold the wire format shared with the server and are public for the server's use,
 * not for applications; a scanner's filter ({@link io.lakestream.client.arrow.BatchFilter}, {@link
 * io.lakestream.client.arrow.ColumnPredicate}) is the other exception.
 */
package io.lakestream.client;
