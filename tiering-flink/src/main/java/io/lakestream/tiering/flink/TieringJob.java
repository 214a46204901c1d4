package io.lakestream.tiering.flink;

import static java.util.Objects.requireNonNull;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Tiering as a Flink job, for servers that run with {@code tiering.enabled=false}: the tiering
 * module's rounds, spread over the job's parallelism.
 *
 * <pre>
 * TableDiscoverySource (parallelism 1)   lists the catalog's streaming tables, emits due rounds
 *   -> keyBy(table)                      one subtask per table: never two rounds of it at once
 *   -> TieringRoundFunction (n)          runs each round: log ranges -> data files -> one commit
 *   -> discarding sink                   (the round results, for the job's metrics and logs)
 * </pre>
 *
 * The job keeps no Flink state and needs no checkpoints: every table's tiered offsets are in its
 * committed lake snapshot, so a restarted job (after a failure, a cancel or an upgrade) lists the
 * tables and goes on from where their commits say, and a round cut short before its commit is
 * redone, never duplicated.
 *
 * <p>Run it with {@code flink run -c io.lakestream.tiering.flink.TieringJob
 * lakestream-tiering-flink-<version>-job.jar --uri http://host:8181 --rpc-address host:9123 ...}
 * ({@link TieringJobOptions#USAGE}).
 */
public final class TieringJob {
  /** The name the job runs under. */
  public static final String NAME = "Lakestream tiering";

  private TieringJob() {}

  public static void main(String[] args) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    TieringJobOptions options;
    try {
      options = TieringJobOptions.parse(args, env.getParallelism());
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(TieringJobOptions.USAGE);
      throw e;
    }
    addTo(env, options, JobTieringHook.NONE);
    env.execute(NAME);
  }

  /**
   * Adds the tiering pipeline to {@code env}.
   *
   * @param hook called by every round between writing its files and committing them
   * @return the rounds' results
   */
  public static DataStream<TieringRoundResult> addTo(
      StreamExecutionEnvironment env, TieringJobOptions options, JobTieringHook hook) {
    requireNonNull(options, "options is null");
    requireNonNull(hook, "hook is null");
    DataStream<TieringRoundResult> results =
        env.fromSource(
                new TableDiscoverySource(options),
                WatermarkStrategy.noWatermarks(),
                "Lakestream table discovery")
            .setParallelism(1)
            .uid("lakestream-table-discovery")
            .keyBy(new ByTable(), Types.STRING)
            .process(new TieringRoundFunction(options, hook))
            .setParallelism(options.parallelism())
            .uid("lakestream-tiering-rounds")
            .name("Lakestream tiering rounds");
    results
        .sinkTo(new DiscardingSink<>())
        .setParallelism(options.parallelism())
        .name("Lakestream tiering results");
    return results;
  }

  /** Keys work by its table. */
  private static final class ByTable implements KeySelector<TieringWork, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(TieringWork work) {
      return work.key();
    }
  }
}
