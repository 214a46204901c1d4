package io.lakestream.rest;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.Test;

class DirectBodyCacheTest {
  @Test
  void oneArrayIsCopiedOnceAndEverySendGetsItsBytes() {
    try (DirectBodyCache cache = new DirectBodyCache(1024)) {
      byte[] body = "{\"metadata-location\":\"file:/t/v1.metadata.json\"}".getBytes(UTF_8);
      ByteBuf first = cache.retainedCopy(body);
      ByteBuf second = cache.retainedCopy(body);
      try {
        assertThat(first.isDirect()).isTrue();
        assertThat(ByteBufUtil.getBytes(first)).isEqualTo(body);
        assertThat(ByteBufUtil.getBytes(second)).isEqualTo(body);
        assertThat(second.memoryAddress()).isEqualTo(first.memoryAddress());
        assertThat(cache.bytes()).isEqualTo(body.length);
        // An equal array is another body: it gets a copy of its own.
        ByteBuf equal = cache.retainedCopy(body.clone());
        assertThat(equal.memoryAddress()).isNotEqualTo(first.memoryAddress());
        equal.release();
        assertThat(cache.bytes()).isEqualTo(2L * body.length);
      } finally {
        first.release();
        second.release();
      }
    }
  }

  @Test
  void copiesBeyondTheBudgetAreEvictedOldestFirstAndFreedAfterTheirLastSend() {
    try (DirectBodyCache cache = new DirectBodyCache(100)) {
      byte[] oldest = filled(40, 'a');
      byte[] middle = filled(40, 'b');
      byte[] newest = filled(40, 'c');
      ByteBuf sending = cache.retainedCopy(oldest);
      cache.retainedCopy(middle).release();
      cache.retainedCopy(newest).release();

      assertThat(cache.bytes()).isEqualTo(80);
      // The evicted copy is still being sent: its bytes stay valid until that send releases it.
      assertThat(sending.refCnt()).isEqualTo(1);
      assertThat(ByteBufUtil.getBytes(sending)).isEqualTo(oldest);
      assertThat(sending.release()).isTrue();
      ByteBuf again = cache.retainedCopy(oldest);
      assertThat(ByteBufUtil.getBytes(again)).isEqualTo(oldest);
      again.release();
      assertThat(cache.bytes()).isEqualTo(80);
    }
  }

  @Test
  void bodiesLargerThanTheBudgetAndSendsAfterCloseAreNotCopied() {
    DirectBodyCache cache = new DirectBodyCache(16);
    byte[] large = filled(17, 'x');
    ByteBuf wrapped = cache.retainedCopy(large);
    assertThat(wrapped.isDirect()).isFalse();
    assertThat(ByteBufUtil.getBytes(wrapped)).isEqualTo(large);
    wrapped.release();
    byte[] small = filled(8, 'y');
    ByteBuf copy = cache.retainedCopy(small);
    cache.close();
    assertThat(cache.bytes()).isZero();
    assertThat(ByteBufUtil.getBytes(copy)).isEqualTo(small);
    assertThat(copy.release()).isTrue();
    ByteBuf afterClose = cache.retainedCopy(small);
    assertThat(afterClose.isDirect()).isFalse();
    assertThat(ByteBufUtil.getBytes(afterClose)).isEqualTo(small);
    afterClose.release();
  }

  private static byte[] filled(int length, char value) {
    byte[] bytes = new byte[length];
    java.util.Arrays.fill(bytes, (byte) value);
    return bytes;
  }
}
