package io.lakestream.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ResponseBufferPoolTest {
  @Test
  void aBufferGivenBackIsTakenAgainCleared() {
    ResponseBufferPool pool = new ResponseBufferPool(2);
    ByteBuffer first = pool.take(1024);
    assertThat(first.isDirect()).isTrue();
    assertThat(first.capacity()).isEqualTo(1024);
    first.position(100).limit(200);
    pool.give(first);
    ByteBuffer again = pool.take(512);
    assertThat(again).isSameAs(first);
    assertThat(again.position()).isZero();
    assertThat(again.limit()).isEqualTo(1024);
    assertThat(pool.kept()).isZero();
  }

  @Test
  void aKeptBufferTooSmallIsNotHandedOut() {
    ResponseBufferPool pool = new ResponseBufferPool(2);
    ByteBuffer small = pool.take(100);
    pool.give(small);
    ByteBuffer large = pool.take(4096);
    assertThat(large).isNotSameAs(small);
    assertThat(large.capacity()).isEqualTo(4096);
  }

  @Test
  void keepsAtMostItsLimitAndOnlyDirectBuffers() {
    ResponseBufferPool pool = new ResponseBufferPool(2);
    pool.give(ByteBuffer.allocate(10));
    assertThat(pool.kept()).isZero();
    for (int i = 0; i < 5; i++) {
      pool.give(ByteBuffer.allocateDirect(10));
    }
    assertThat(pool.kept()).isEqualTo(2);
    pool.clear();
    assertThat(pool.kept()).isZero();
    assertThatThrownBy(() -> new ResponseBufferPool(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
