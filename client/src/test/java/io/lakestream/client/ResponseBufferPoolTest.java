package io.lakestream.client;

import static io.lakestream.client.ResponseBufferPool.MIN_CAPACITY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ResponseBufferPoolTest {
  @Test
  void aBufferGivenBackIsTakenAgainCleared() {
    ResponseBufferPool pool = new ResponseBufferPool(1 << 20);
    ByteBuffer first = pool.take(1024);
    assertThat(first.isDirect()).isTrue();
    assertThat(first.capacity()).isEqualTo(MIN_CAPACITY);
    first.position(100).limit(200);
    pool.give(first);
    ByteBuffer again = pool.take(512);
    assertThat(again).isSameAs(first);
    assertThat(again.position()).isZero();
    assertThat(again.limit()).isEqualTo(MIN_CAPACITY);
    assertThat(pool.kept()).isZero();
    assertThat(pool.keptBytes()).isZero();
  }

  @Test
  void aResponseGetsABufferOfAboutItsOwnSize() {
    int mebibyte = 1 << 20;
    // Size classes a quarter of a power of two apart: at most a quarter of a buffer is unused.
    for (int size : new int[] {MIN_CAPACITY + 1, 300_000, mebibyte, mebibyte + 1, 9 * mebibyte}) {
      int capacity = ResponseBufferPool.capacityFor(size);
      assertThat(capacity).isGreaterThanOrEqualTo(size);
      assertThat((double) (capacity - size) / capacity).isLessThan(0.25);
    }
    assertThat(ResponseBufferPool.capacityFor(0)).isEqualTo(MIN_CAPACITY);
    assertThat(ResponseBufferPool.capacityFor(8 * mebibyte)).isEqualTo(8 * mebibyte);
    assertThat(ResponseBufferPool.capacityFor(8 * mebibyte + 1)).isEqualTo(10 * mebibyte);
  }

  @Test
  void aKeptBufferIsTakenOnlyByAResponseItFitsWithoutMuchWaste() {
    ResponseBufferPool pool = new ResponseBufferPool(64 << 20);
    ByteBuffer small = pool.take(100);
    ByteBuffer large = pool.take(8 << 20);
    pool.give(small);
    pool.give(large);
    // Too small for a large response, too large for a small one.
    ByteBuffer medium = pool.take(1 << 20);
    assertThat(medium).isNotSameAs(small).isNotSameAs(large);
    assertThat(medium.capacity()).isEqualTo(1 << 20);
    assertThat(pool.kept()).isEqualTo(2);
    // A response a little smaller than a kept buffer takes it.
    assertThat(pool.take(6 << 20)).isSameAs(large);
    assertThat(pool.take(MIN_CAPACITY)).isSameAs(small);
    assertThat(pool.kept()).isZero();
  }

  @Test
  void keepsAtMostItsBytesAndOnlyDirectBuffers() {
    ResponseBufferPool pool = new ResponseBufferPool(2L * MIN_CAPACITY);
    pool.give(ByteBuffer.allocate(MIN_CAPACITY));
    assertThat(pool.kept()).isZero();
    for (int i = 0; i < 5; i++) {
      pool.give(ByteBuffer.allocateDirect(MIN_CAPACITY));
    }
    assertThat(pool.kept()).isEqualTo(2);
    assertThat(pool.keptBytes()).isEqualTo(2L * MIN_CAPACITY);
    pool.clear();
    assertThat(pool.kept()).isZero();
    assertThat(pool.keptBytes()).isZero();
    assertThatThrownBy(() -> new ResponseBufferPool(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
