/**
 * Tiered offsets: how far each bucket's log is contained in a lake snapshot ({@link
 * io.lakestream.lake.offsets.TieredOffsets}, stored in the snapshot's summary), and the catalog's
 * own copy of them that survives other engines' table maintenance ({@link
 * io.lakestream.lake.offsets.TieredOffsetsStore}). Union reads plan from them and every format's
 * tiering commits them.
 */
package io.lakestream.lake.offsets;
