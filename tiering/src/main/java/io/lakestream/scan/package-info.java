/**
 * Union reads of streaming tables: the lake snapshot plus the log after it ({@link
 * io.lakestream.client.scan.UnionScanPlan}). Planning lives beside tiering because both rest on the
 * same contract, the tiered offsets in snapshot summaries.
 */
package io.lakestream.scan;
