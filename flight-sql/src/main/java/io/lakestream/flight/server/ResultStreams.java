package io.lakestream.flight.server;

import static java.util.Objects.requireNonNull;

import io.lakestream.flight.query.FlightErrors;
import io.lakestream.flight.query.QueryResult;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Sends query results to Flight clients: each batch once the client's window takes it, stopping
 * when the query is stopped or the client stops reading; and tells whether the call a query serves
 * is gone. Thread safe.
 */
final class ResultStreams {
  private final Duration resultTimeout;

  /**
   * @param resultTimeout how long a batch waits for the client to take it
   */
  ResultStreams(Duration resultTimeout) {
    this.resultTimeout = requireNonNull(resultTimeout, "resultTimeout is null");
  }

  /**
   * Streams a result's batches; {@code ended} runs once no more batch will be sent, before the
   * client learns that the stream ended, so a cancel arriving after that finds nothing to cancel.
   */
  void stream(QueryResult result, ServerStreamListener listener, Runnable ended) {
    try (result) {
      ArrowReader reader = result.reader();
      // Each batch's buffers go to gRPC as they are, not copied into its own: DuckDB exports every
      // batch into buffers of its own that nothing writes to afterwards, and Flight keeps them
      // (a reference each) until gRPC has written them out.
      listener.setUseZeroCopy(true);
      listener.start(reader.getVectorSchemaRoot());
      while (!result.cancelled() && reader.loadNextBatch()) {
        BackpressureStrategy.WaitResult ready = awaitReady(listener, result);
        if (ready == BackpressureStrategy.WaitResult.OTHER) {
          break; // stopped while the client did not read: reported below
        }
        if (ready != BackpressureStrategy.WaitResult.READY) {
          ended.run();
          listener.error(
              CallStatus.CANCELLED
                  .withDescription("The client stopped reading the result (" + ready + ")")
                  .toRuntimeException());
          return;
        }
        listener.putNext();
      }
      ended.run();
      if (result.cancelled()) {
        listener.error(FlightErrors.toFlight(result.stoppedError()));
        return;
      }
      listener.completed();
    } catch (Exception e) {
      ended.run();
      listener.error(FlightErrors.toFlight(result.explained(e)));
    }
  }

  /**
   * Whether the Flight call being served on this thread is gone: the client cancelled it, its
   * deadline passed or its connection closed, or the client shut its channel down (see {@link
   * ClientConnections}: gRPC lets the call go on then). gRPC marks the call's context cancelled at
   * once, on its own thread, while Flight's {@code isCancelled} waits for the call's executor,
   * which runs the query.
   */
  static BooleanSupplier callGone(CallContext context) {
    io.grpc.Context call = io.grpc.Context.current();
    ClientConnections.ClientConnection connection = ClientConnections.current();
    return () -> call.isCancelled() || connection.gone() || context.isCancelled();
  }

  static BooleanSupplier callGone(ServerStreamListener listener) {
    io.grpc.Context call = io.grpc.Context.current();
    ClientConnections.ClientConnection connection = ClientConnections.current();
    return () -> call.isCancelled() || connection.gone() || listener.isCancelled();
  }

  /**
   * Waits until the client can take another batch, polling: this runs on the call's gRPC thread,
   * which is also the thread that would deliver an on-ready callback, so a callback-based wait
   * ({@code CallbackBackpressureStrategy}) would only return at its timeout once the client's
   * window fills (any result of more than a few tens of kilobytes).
   *
   * @return {@code OTHER} when the query was stopped meanwhile (its client went away, it was
   *     cancelled or ran out of time)
   */
  private BackpressureStrategy.WaitResult awaitReady(
      ServerStreamListener listener, QueryResult result) {
    long deadline = System.nanoTime() + resultTimeout.toNanos();
    long pause = 10_000; // 10 microseconds, doubling up to a millisecond
    while (!listener.isReady()) {
      if (listener.isCancelled()) {
        return BackpressureStrategy.WaitResult.CANCELLED;
      }
      if (result.cancelled()) {
        return BackpressureStrategy.WaitResult.OTHER;
      }
      if (System.nanoTime() - deadline > 0) {
        return BackpressureStrategy.WaitResult.TIMEOUT;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(pause);
      pause = Math.min(1_000_000, pause * 2);
    }
    return BackpressureStrategy.WaitResult.READY;
  }
}
