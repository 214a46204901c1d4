package io.lakestream.tiering.flink;

import io.lakestream.lake.TieringHook;
import java.io.Serializable;

/**
 * A {@link TieringHook} that travels with the job graph to the subtasks that run rounds. {@link
 * TieringJob#main} uses {@link #NONE}; tests hand in hooks that stand for a crash between a round's
 * data files and its commit.
 */
@FunctionalInterface
public interface JobTieringHook extends TieringHook, Serializable {
  JobTieringHook NONE = (table, files) -> {};
}
