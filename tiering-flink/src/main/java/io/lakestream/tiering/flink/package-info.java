/**
 * Tiering as a Flink job ({@link io.lakestream.tiering.flink.TieringJob}): a discovery source
 * ({@link io.lakestream.tiering.flink.TableDiscoverySource}, scheduled by {@link
 * io.lakestream.tiering.flink.TieringSchedule}) emits a {@link
 * io.lakestream.tiering.flink.TieringWork} whenever a streaming table's round is due; work is keyed
 * by table, so one subtask owns each table, and {@link
 * io.lakestream.tiering.flink.TieringRoundFunction} runs the tiering module's rounds. The job keeps
 * no state of its own: each table's committed lake snapshot records how far it is tiered, which is
 * what makes a round cut short by a failure redo its range instead of duplicating it. Depends on
 * the tiering, lake and client modules only; Flink is provided by the cluster.
 */
package io.lakestream.tiering.flink;
