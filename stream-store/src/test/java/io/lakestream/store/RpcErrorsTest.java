package io.lakestream.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.TableKind;
import io.lakestream.client.rpc.ErrorCode;
import io.lakestream.client.rpc.RpcException;
import io.lakestream.store.kv.DeleteNotSupportedException;
import io.lakestream.store.kv.InvalidMutationException;
import io.lakestream.store.log.InvalidBatchException;
import io.lakestream.store.log.OffsetOutOfRangeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Pins RpcErrors, the one table from the stream store's exceptions to wire codes. */
class RpcErrorsTest {
  @Test
  void requestChecksKeepTheirCodeAndMessage() {
    assertMapped(new UnsupportedVersionException("v9"), ErrorCode.UNSUPPORTED_VERSION, "v9");
    assertMapped(new NotAuthenticatedException("who"), ErrorCode.NOT_AUTHENTICATED, "who");
    assertMapped(new InvalidRequestException("bad"), ErrorCode.INVALID_REQUEST, "bad");
    assertMapped(new UnknownTableException("no t"), ErrorCode.UNKNOWN_TABLE, "no t");
    assertMapped(new UnknownPartitionException("no p"), ErrorCode.UNKNOWN_PARTITION, "no p");
    assertMapped(new UnknownBucketException("no b"), ErrorCode.UNKNOWN_BUCKET, "no b");
    assertMapped(new UnknownScanException("no s"), ErrorCode.UNKNOWN_SCAN, "no s");
    assertMapped(new SchemaMismatchException("no 3"), ErrorCode.SCHEMA_MISMATCH, "no 3");
    assertMapped(new WrongTableKindException(TableKind.LOG, "pk"), ErrorCode.NOT_A_LOG_TABLE, "pk");
    assertMapped(
        new WrongTableKindException(TableKind.PRIMARY_KEY, "log"),
        ErrorCode.NOT_A_PRIMARY_KEY_TABLE,
        "log");
  }

  @Test
  void requestChecksIgnoreTheContext() {
    RpcException mapped = RpcErrors.of(new UnknownBucketException("Table t has buckets 0..3"), "x");
    assertThat(mapped.error()).isEqualTo(ErrorCode.UNKNOWN_BUCKET);
    assertThat(mapped.getMessage()).isEqualTo("Table t has buckets 0..3");
  }

  @Test
  void storeExceptions() {
    assertMapped(new InvalidMutationException("row 1"), ErrorCode.INVALID_MUTATION, "row 1");
    assertMapped(
        new DeleteNotSupportedException("first-row"), ErrorCode.DELETE_NOT_SUPPORTED, "first-row");
    assertMapped(new InvalidBatchException("crc"), ErrorCode.INVALID_BATCH, "crc");
    assertThat(RpcErrors.of(new OffsetOutOfRangeException("below 4"), "Cannot fetch").getMessage())
        .isEqualTo("Cannot fetch: below 4");
    assertThat(RpcErrors.of(new UncheckedIOException(new IOException("disk")), "Cannot read t"))
        .extracting(RpcException::error)
        .isEqualTo(ErrorCode.STORAGE_ERROR);
    assertThat(RpcErrors.of(new BufferUnderflowException(), "Truncated FETCH request body"))
        .extracting(RpcException::error, RpcException::getMessage)
        .containsExactly(ErrorCode.INVALID_REQUEST, "Truncated FETCH request body");
    assertMapped(
        new CompletionException(new UnknownTableException("gone")),
        ErrorCode.UNKNOWN_TABLE,
        "gone");
  }

  @Test
  void anUnmappedExceptionIsABug() {
    assertThatThrownBy(() -> RpcErrors.of(new IllegalStateException("bug")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("No wire error code");
    CompletionException failure = RpcErrors.failure(new UnknownScanException("closed"));
    assertThat(failure.getCause()).isInstanceOf(RpcException.class);
    assertThat(((RpcException) failure.getCause()).error()).isEqualTo(ErrorCode.UNKNOWN_SCAN);
  }

  private static void assertMapped(Throwable error, ErrorCode code, String message) {
    RpcException mapped = RpcErrors.of(error);
    assertThat(mapped.error()).isEqualTo(code);
    assertThat(mapped.getMessage()).isEqualTo(message);
  }
}
