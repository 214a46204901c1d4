/**
 * Union reads of streaming tables: the lake snapshot plus the log after it. This is the one place
 * the contract is written down; the planner ({@link io.lakestream.scan.UnionScanPlanner}), the
 * reference reader ({@link io.lakestream.scan.UnionScanReader}), Flight SQL and every connector
 * follow it.
 *
 * <h2>The plan</h2>
 *
 * A plan ({@link io.lakestream.client.scan.UnionScanPlan}) is a lake snapshot S and, per partition
 * and bucket, one log range {@code [from, to)}:
 *
 * <ul>
 *   <li>S is the lake table's current snapshot; {@code from} is the bucket's tiered offset in S
 *       ({@link io.lakestream.lake.offsets.TieredOffsets#committedIn}: the offsets of the newest
 *       snapshot in S's ancestry that has them; 0, the log start, for a bucket never tiered);
 *   <li>{@code to} is the bucket's high watermark, read <em>after</em> S was loaded. A row
 *       acknowledged before planning lies below its bucket's high watermark, so it is in S (below
 *       {@code from}) or in the range; tiering only moves offsets forward, so nothing in a range is
 *       also in S. Each row is read exactly once.
 *   <li>a bucket whose high watermark is not above {@code from} has no range; a bucket whose log no
 *       longer starts at or below {@code from} (retention deleted rows never tiered) makes the plan
 *       fail with {@link io.lakestream.scan.LogRangeGoneException} instead of missing rows.
 * </ul>
 *
 * <h2>Merging</h2>
 *
 * <ul>
 *   <li>A log table's result is S's rows followed by each range's rows in offset order.
 *   <li>A primary-key table's ranges hold changes, and the tail wins: per key, the last change in
 *       the ranges decides (an insert or update-after puts the row, a delete removes the key, an
 *       update-before is skipped since its update-after follows); S's row of a key the ranges touch
 *       is dropped, keys they do not touch keep S's row. The result equals folding the whole log up
 *       to the high watermarks.
 * </ul>
 *
 * <p>Tiering commits against the same contract: every snapshot it commits records, in its summary,
 * the offsets it contains ({@link io.lakestream.lake.offsets.TieredOffsets}).
 */
package io.lakestream.scan;
