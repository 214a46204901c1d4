package io.lakestream.store.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.client.batch.LogBatch;
import io.lakestream.store.testing.TestingClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogTabletTest {
  @TempDir Path directory;
  private final TestingClock clock = new TestingClock(1_000_000);

  private static LogConfig config(long segmentBytes, FlushMode mode) {
    return new LogConfig(
        segmentBytes, Duration.ofDays(1), 256, mode, 1 << 20, Duration.ofHours(1), -1);
  }

  private static LogBatch batch(String text, int records) {
    return batch(text, records, LogBatch.NO_WRITER, 0);
  }

  private static LogBatch batch(String text, int records, long writer, int sequence) {
    return LogBatch.create(
        records,
        3,
        writer,
        sequence,
        (short) 0,
        ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static List<LogBatch> decode(ByteBuffer bytes) {
    List<LogBatch> batches = new ArrayList<>();
    while (bytes.hasRemaining()) {
      int size = LogBatch.LOG_OVERHEAD + bytes.getInt(bytes.position() + LogBatch.LENGTH);
      ByteBuffer one = bytes.slice(bytes.position(), size);
      batches.add(LogBatch.wrap(one));
      bytes.position(bytes.position() + size);
    }
    return batches;
  }

  private static String text(LogBatch batch) {
    return StandardCharsets.UTF_8.decode(batch.payload()).toString();
  }

  @Test
  void aWritersEmptyAppendKeepsItsSequenceAcrossARestart() throws Exception {
    long writer = 77;
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      tablet.append(batch("a", 2, writer, 0)).durable().get();
      AppendResult nothing = tablet.appendNothing(writer, 1);
      nothing.durable().get();
      assertThat(nothing.baseOffset()).isEqualTo(2);
      assertThat(nothing.lastOffset()).isEqualTo(1);
    }
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      // A retry of the empty request is recognised; the next sequence is accepted.
      assertThat(tablet.earlierAppendOf(writer, 1).duplicate()).isTrue();
      assertThat(tablet.append(batch("b", 1, writer, 2)).baseOffset()).isEqualTo(2);
      assertThatThrownBy(() -> tablet.append(batch("c", 1, writer, 4)))
          .isInstanceOf(InvalidBatchException.class)
          .hasMessageContaining("skipped from sequence 2 to 4");
    }
  }

  @Test
  void appendsTakeConsecutiveOffsetsAndReadBack() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      AppendResult first = tablet.append(batch("a", 3));
      first.durable().get();
      AppendResult second = tablet.append(batch("b", 2));
      second.durable().get();
      assertThat(first.baseOffset()).isZero();
      assertThat(first.lastOffset()).isEqualTo(2);
      assertThat(second.baseOffset()).isEqualTo(3);
      assertThat(tablet.highWatermark()).isEqualTo(5);

      List<LogBatch> all = decode(tablet.read(0, 1 << 20));
      assertThat(all).extracting(LogTabletTest::text).containsExactly("a", "b");
      assertThat(all.get(0).commitTimestamp()).isEqualTo(clock.millis());
      assertThat(all).allMatch(LogBatch::isValid);
      assertThat(decode(tablet.read(4, 1 << 20)))
          .extracting(LogBatch::baseOffset)
          .containsExactly(3L);
      assertThat(tablet.read(5, 100).remaining()).isZero();
      assertThatThrownBy(() -> tablet.read(6, 100)).isInstanceOf(OffsetOutOfRangeException.class);
      assertThat(decode(tablet.read(0, 1))).hasSize(1);
    }
  }

  @Test
  void appendedRowsAndBytesCountWhatWasWrittenSinceOpenNotRetries() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.OS), clock)) {
      LogBatch first = batch("first", 3, 7, 0);
      int firstBytes = first.sizeInBytes();
      tablet.append(first);
      tablet.append(batch("first", 3, 7, 0)); // a retry: not written, not counted
      LogBatch second = batch("second-batch", 2);
      int secondBytes = second.sizeInBytes();
      tablet.append(second);
      assertThat(tablet.appendedRecords()).isEqualTo(5);
      assertThat(tablet.appendedBytes()).isEqualTo(firstBytes + secondBytes);
      assertThat(tablet.sizeInBytes()).isEqualTo(firstBytes + secondBytes);
    }
    try (LogTablet reopened = LogTablet.open(directory, config(1 << 20, FlushMode.OS), clock)) {
      // Counters start from zero with the tablet; the log keeps its offsets and size.
      assertThat(reopened.appendedRecords()).isZero();
      assertThat(reopened.appendedBytes()).isZero();
      assertThat(reopened.logEndOffset()).isEqualTo(5);
      assertThat(reopened.sizeInBytes()).isPositive();
    }
  }

  @Test
  void retriedBatchesAreNotWrittenTwice() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      tablet.append(batch("x", 1)).durable().get();
      AppendResult original = tablet.append(batch("first", 2, 42, 0));
      AppendResult retry = tablet.append(batch("first", 2, 42, 0));
      assertThat(retry.duplicate()).isTrue();
      assertThat(retry.baseOffset()).isEqualTo(original.baseOffset());
      retry.durable().get();
      assertThat(tablet.append(batch("second", 1, 42, 1)).baseOffset()).isEqualTo(3);
      assertThatThrownBy(() -> tablet.append(batch("gap", 1, 42, 5)))
          .isInstanceOf(InvalidBatchException.class)
          .hasMessageContaining("skipped from sequence 1 to 5")
          .satisfies(e -> assertThat(((InvalidBatchException) e).duplicateSequence()).isFalse());
      assertThat(tablet.logEndOffset()).isEqualTo(4);
    }
    try (LogTablet reopened = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      assertThat(reopened.append(batch("second", 1, 42, 1)).duplicate()).isTrue();
      assertThat(reopened.logEndOffset()).isEqualTo(4);
    }
  }

  @Test
  void writersIdleLongerThanTheRetentionAreForgottenOthersStillDeduplicate() throws Exception {
    // The test config's retention is one hour.
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      for (long writer = 1; writer <= 1000; writer++) {
        tablet.append(batch("short-lived", 1, writer, 0));
      }
      clock.advance(Duration.ofMinutes(30).toMillis());
      AppendResult kept = tablet.append(batch("recent", 1, 5000, 0));
      assertThat(tablet.rememberedWriters()).isEqualTo(1001);

      clock.advance(Duration.ofMinutes(31).toMillis());
      AppendResult another = tablet.append(batch("another", 1, 6000, 0));
      another.durable().get();
      assertThat(tablet.rememberedWriters()).isEqualTo(2);
      AppendResult retry = tablet.append(batch("recent", 1, 5000, 0));
      assertThat(retry.duplicate()).isTrue();
      assertThat(retry.baseOffset()).isEqualTo(kept.baseOffset());
    }
    // Rebuilt from the log by the batches' commit times: the same writers are forgotten.
    try (LogTablet reopened = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      assertThat(reopened.rememberedWriters()).isEqualTo(2);
      assertThat(reopened.append(batch("another", 1, 6000, 0)).duplicate()).isTrue();
    }
  }

  @Test
  void retriesOfAnyOfTheLastFiveBatchesGetTheirOriginalOffsets() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      List<AppendResult> originals = new ArrayList<>();
      for (int sequence = 0; sequence < 7; sequence++) {
        originals.add(tablet.append(batch("s" + sequence, 2, 9, sequence)));
      }
      for (int sequence = 2; sequence < 7; sequence++) {
        AppendResult retry = tablet.append(batch("s" + sequence, 2, 9, sequence));
        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.baseOffset()).isEqualTo(originals.get(sequence).baseOffset());
      }
      assertThatThrownBy(() -> tablet.append(batch("s1", 2, 9, 1)))
          .isInstanceOf(InvalidBatchException.class)
          .hasMessageContaining("too old to deduplicate")
          .satisfies(e -> assertThat(((InvalidBatchException) e).duplicateSequence()).isTrue());
      assertThat(tablet.logEndOffset()).isEqualTo(14);
    }
    try (LogTablet reopened = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      assertThat(reopened.append(batch("s3", 2, 9, 3)).baseOffset()).isEqualTo(6);
      assertThat(reopened.append(batch("s7", 1, 9, 7)).duplicate()).isFalse();
    }
  }

  @Test
  void corruptOrOversizedBatchesAreRefusedWhole() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      LogBatch corrupt = batch("payload", 1);
      ByteBuffer bytes = corrupt.buffer();
      bytes.put(LogBatch.HEADER_SIZE, (byte) 'P');
      assertThatThrownBy(() -> tablet.append(LogBatch.wrap(bytes)))
          .isInstanceOf(InvalidBatchException.class)
          .hasMessageContaining("CRC");
      assertThatThrownBy(() -> tablet.append(batch("x".repeat(2 << 20), 1)))
          .isInstanceOf(InvalidBatchException.class)
          .hasMessageContaining("exceeds the limit");
      assertThat(tablet.logEndOffset()).isZero();
    }
  }

  @Test
  void segmentsRollAndReadsCrossThem() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(300, FlushMode.OS), clock)) {
      for (int i = 0; i < 20; i++) {
        tablet.append(batch("batch-" + i, 2));
        clock.advance(10);
      }
      assertThat(tablet.segmentCount()).isGreaterThan(3);
      List<String> texts = new ArrayList<>();
      long offset = 0;
      while (offset < tablet.highWatermark()) {
        List<LogBatch> read = decode(tablet.read(offset, 200));
        read.forEach(batch -> texts.add(text(batch)));
        offset = read.getLast().nextOffset();
      }
      assertThat(texts).hasSize(20).startsWith("batch-0", "batch-1").endsWith("batch-19");
      assertThat(tablet.offsetForTimestamp(1_000_000 + 55)).isEqualTo(12);
      assertThat(tablet.offsetForTimestamp(0)).isZero();
      assertThat(tablet.offsetForTimestamp(Long.MAX_VALUE)).isEqualTo(40);
    }
  }

  @Test
  void recoveryTruncatesATornTailAndKeepsEverythingBefore() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      for (int i = 0; i < 10; i++) {
        tablet.append(batch("record-" + i, 1)).durable().get();
      }
    }
    Path segment = onlySegment();
    long size = Files.size(segment);
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      channel.truncate(size - 5);
    }
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      assertThat(tablet.logEndOffset()).isEqualTo(9);
      assertThat(decode(tablet.read(0, 1 << 20)))
          .extracting(LogTabletTest::text)
          .containsExactly(
              "record-0",
              "record-1",
              "record-2",
              "record-3",
              "record-4",
              "record-5",
              "record-6",
              "record-7",
              "record-8");
      assertThat(tablet.append(batch("after", 1)).baseOffset()).isEqualTo(9);
    }
  }

  @Test
  void recoveryStopsAtACorruptBatch() throws Exception {
    long corruptPosition;
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      tablet.append(batch("good", 1)).durable().get();
      corruptPosition = Files.size(onlySegment());
      tablet.append(batch("flipped", 1)).durable().get();
      tablet.append(batch("later", 1)).durable().get();
    }
    try (FileChannel channel = FileChannel.open(onlySegment(), StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(new byte[] {'F'}), corruptPosition + LogBatch.HEADER_SIZE);
    }
    try (LogTablet tablet = LogTablet.open(directory, config(1 << 20, FlushMode.FSYNC), clock)) {
      assertThat(tablet.logEndOffset()).isEqualTo(1);
      assertThat(decode(tablet.read(0, 1 << 20)))
          .extracting(LogTabletTest::text)
          .containsExactly("good");
    }
  }

  @Test
  void retentionDeletesOnlyOldSegmentsBelowTheFloor() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(200, FlushMode.OS), clock)) {
      for (int i = 0; i < 12; i++) {
        tablet.append(batch("b" + i, 1));
      }
      int before = tablet.segmentCount();
      assertThat(tablet.enforceRetention(Long.MAX_VALUE)).isZero();
      clock.advance(Duration.ofHours(2).toMillis());
      // Four 49-byte batches fit a 200-byte segment: segments hold [0,4), [4,8), ...
      assertThat(tablet.enforceRetention(7)).isEqualTo(1);
      assertThat(tablet.logStartOffset()).isEqualTo(4);
      assertThat(tablet.enforceRetention(8)).isEqualTo(1);
      assertThat(tablet.logStartOffset()).isEqualTo(8);
      int afterFloor = tablet.segmentCount();
      assertThat(afterFloor).isLessThan(before);
      assertThat(tablet.enforceRetention(Long.MAX_VALUE)).isEqualTo(afterFloor - 1);
      assertThat(tablet.segmentCount()).isEqualTo(1);
      assertThatThrownBy(() -> tablet.read(0, 100)).isInstanceOf(OffsetOutOfRangeException.class);
      assertThat(decode(tablet.read(tablet.logStartOffset(), 1 << 20))).isNotEmpty();
    }
  }

  @Test
  void concurrentWritersShareFsyncsAndGetDistinctOffsets() throws Exception {
    try (LogTablet tablet = LogTablet.open(directory, config(4096, FlushMode.FSYNC), clock)) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<List<Long>>> futures = new ArrayList<>();
      for (int writer = 0; writer < 4; writer++) {
        int id = writer;
        futures.add(
            pool.submit(
                () -> {
                  List<Long> offsets = new ArrayList<>();
                  for (int i = 0; i < 200; i++) {
                    AppendResult result = tablet.append(batch("w" + id + "-" + i, 1, id, i));
                    result.durable().get();
                    assertThat(tablet.highWatermark()).isGreaterThan(result.lastOffset());
                    offsets.add(result.baseOffset());
                  }
                  return offsets;
                }));
      }
      List<Long> all = new ArrayList<>();
      for (Future<List<Long>> future : futures) {
        all.addAll(future.get());
      }
      pool.shutdown();
      assertThat(all).doesNotHaveDuplicates().hasSize(800);
      assertThat(tablet.highWatermark()).isEqualTo(800);
    }
  }

  private Path onlySegment() throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(path -> path.toString().endsWith(".log")).findFirst().orElseThrow();
    }
  }
}
