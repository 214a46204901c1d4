package io.lakestream.client.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.compression.ZstdCompressionCodec;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ArrowBatchCodecTest {
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    // Throws if a test leaked Arrow memory.
    allocator.close();
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void roundTripsEveryColumnKind(Compression compression) {
    try (VectorSchemaRoot original = TestBatches.mixed(allocator, 100)) {
      ByteBuffer message = ArrowBatchCodec.encode(original, compression);

      assertThat(message.position()).isZero();
      assertThat(message.remaining() % 8).isZero();
      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decode(message, TestBatches.mixedSchema(), allocator)) {
        assertThat(decoded.getRowCount()).isEqualTo(100);
        assertThat(decoded.equals(original)).isTrue();
      }
      assertThat(message.position()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void roundTripsW1(Compression compression) {
    try (VectorSchemaRoot original = TestBatches.w1(allocator, 10_000, 42)) {
      ByteBuffer message = ArrowBatchCodec.encode(original, compression);
      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decode(message, TestBatches.w1Schema(), allocator)) {
        assertThat(decoded.equals(original)).isTrue();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void roundTripsAnEmptyBatch(Compression compression) {
    try (VectorSchemaRoot original = TestBatches.mixed(allocator, 0)) {
      ByteBuffer message = ArrowBatchCodec.encode(original, compression);
      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decode(message, TestBatches.mixedSchema(), allocator)) {
        assertThat(decoded.getRowCount()).isZero();
        assertThat(decoded.equals(original)).isTrue();
      }
    }
  }

  @Test
  void compressionShrinksTheW1Batch() {
    try (VectorSchemaRoot root = TestBatches.w1(allocator, 10_000, 7)) {
      int none = ArrowBatchCodec.encode(root, Compression.NONE).remaining();
      int lz4 = ArrowBatchCodec.encode(root, Compression.LZ4).remaining();
      int zstd = ArrowBatchCodec.encode(root, Compression.ZSTD).remaining();

      assertThat(lz4).isLessThan(none);
      assertThat(zstd).isLessThan(lz4);
    }
  }

  @Test
  void zstdBatchesReadAndWriteLikeArrowsOwnCodec() throws Exception {
    try (VectorSchemaRoot original = TestBatches.w1(allocator, 5_000, 11)) {
      // Ours written, Arrow's reader with Arrow's ZSTD codec.
      ByteBuffer ours = ArrowBatchCodec.encode(original, Compression.ZSTD);
      byte[] bytes = new byte[ours.remaining()];
      ours.get(bytes);
      try (ArrowRecordBatch batch =
              MessageSerializer.deserializeRecordBatch(
                  new ReadChannel(Channels.newChannel(new ByteArrayInputStream(bytes))),
                  allocator);
          VectorSchemaRoot read = VectorSchemaRoot.create(TestBatches.w1Schema(), allocator)) {
        assertThat(batch.getBodyCompression().getCodec()).isEqualTo(CompressionType.ZSTD);
        new VectorLoader(read, CommonsCompressionFactory.INSTANCE).load(batch);
        assertThat(read.equals(original)).isTrue();
      }

      // Arrow's codec written, ours read.
      ByteArrayOutputStream theirs = new ByteArrayOutputStream();
      try (ArrowRecordBatch batch =
          new VectorUnloader(original, true, new ZstdCompressionCodec(), true).getRecordBatch()) {
        MessageSerializer.serialize(new WriteChannel(Channels.newChannel(theirs)), batch);
      }
      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decode(
              ByteBuffer.wrap(theirs.toByteArray()), TestBatches.w1Schema(), allocator)) {
        assertThat(decoded.equals(original)).isTrue();
      }
    }
  }

  @Test
  void zstdRoundTripsFromManyThreadsAtOnce() {
    List<Integer> seeds = java.util.stream.IntStream.range(0, 32).boxed().toList();
    List<Boolean> equal =
        seeds.parallelStream()
            .map(
                seed -> {
                  try (VectorSchemaRoot original = TestBatches.w1(allocator, 2_000, seed)) {
                    ByteBuffer message = ArrowBatchCodec.encode(original, Compression.ZSTD);
                    try (VectorSchemaRoot decoded =
                        ArrowBatchCodec.decode(message, TestBatches.w1Schema(), allocator)) {
                      return decoded.equals(original);
                    }
                  }
                })
            .toList();

    assertThat(equal).hasSize(32).containsOnly(true);
  }

  @Test
  void decodesFromADirectBufferAtAnOffset() {
    try (VectorSchemaRoot original = TestBatches.mixed(allocator, 20)) {
      ByteBuffer message = ArrowBatchCodec.encode(original, Compression.ZSTD);
      ByteBuffer direct = ByteBuffer.allocateDirect(message.remaining() + 5);
      direct.position(5);
      direct.put(message.duplicate());
      direct.position(5);

      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decode(direct, TestBatches.mixedSchema(), allocator)) {
        assertThat(decoded.equals(original)).isTrue();
      }
      assertThat(direct.position()).isEqualTo(5);
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void decodesInPlaceAndReleasesTheMessageOnceItsLastBufferIsClosed(Compression compression) {
    try (VectorSchemaRoot original = TestBatches.w1(allocator, 2_000, 11)) {
      ByteBuffer direct = direct(ArrowBatchCodec.encode(original, compression), 3);
      AtomicInteger releases = new AtomicInteger();

      VectorSchemaRoot decoded =
          ArrowBatchCodec.decodeInPlace(
              direct, TestBatches.w1Schema(), allocator, releases::incrementAndGet);
      try (decoded) {
        assertThat(decoded.equals(original)).isTrue();
        if (compression == Compression.NONE) {
          // The columns read the message's own memory: changing it shows through.
          assertThat(releases).hasValue(0);
          long address = decoded.getVector("b0").getDataBuffer().memoryAddress();
          long start = MemoryUtil.getByteBufferAddress(direct);
          assertThat(address).isBetween(start, start + direct.capacity());
        }
      }
      assertThat(releases).hasValue(1);
    }
  }

  @Test
  void buffersTransferredOutOfAnInPlaceRootKeepTheMessageUntilTheyAreClosed() {
    try (VectorSchemaRoot original = TestBatches.w1(allocator, 500, 5);
        BufferAllocator other = allocator.newChildAllocator("other", 0, Long.MAX_VALUE)) {
      ByteBuffer direct = direct(ArrowBatchCodec.encode(original, Compression.NONE), 0);
      AtomicInteger releases = new AtomicInteger();
      VectorSchemaRoot decoded =
          ArrowBatchCodec.decodeInPlace(
              direct, TestBatches.w1Schema(), allocator, releases::incrementAndGet);
      FieldVector moved;
      try (decoded) {
        TransferPair transfer = decoded.getVector("s0").getTransferPair(other);
        transfer.transfer();
        moved = (FieldVector) transfer.getTo();
      }
      assertThat(releases).hasValue(0);
      assertThat(moved.getObject(7)).isEqualTo(original.getVector("s0").getObject(7));
      moved.close();
      assertThat(releases).hasValue(1);
    }
  }

  @Test
  void aFailedInPlaceDecodeReleasesTheMessage() {
    try (VectorSchemaRoot original = TestBatches.w1(allocator, 100, 5)) {
      ByteBuffer message = ArrowBatchCodec.encode(original, Compression.NONE);
      AtomicInteger releases = new AtomicInteger();

      assertThatThrownBy(
              () ->
                  ArrowBatchCodec.decodeInPlace(
                      direct(message, 0),
                      TestBatches.mixedSchema(),
                      allocator,
                      releases::incrementAndGet))
          .isInstanceOf(InvalidBatchFormatException.class);
      assertThat(releases).hasValue(1);
      assertThatThrownBy(
              () ->
                  ArrowBatchCodec.decodeInPlace(
                      message, TestBatches.w1Schema(), allocator, releases::incrementAndGet))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("direct memory");
      assertThat(releases).hasValue(2);
      try (BufferAllocator small = allocator.newChildAllocator("small", 0, 1024)) {
        assertThatThrownBy(
                () ->
                    ArrowBatchCodec.decodeInPlace(
                        direct(message, 0),
                        TestBatches.w1Schema(),
                        small,
                        releases::incrementAndGet))
            .isInstanceOf(OutOfMemoryException.class);
      }
      assertThat(releases).hasValue(3);
    }
  }

  /** A direct copy of a message, {@code offset} bytes into a larger buffer. */
  private static ByteBuffer direct(ByteBuffer message, int offset) {
    ByteBuffer direct = ByteBuffer.allocateDirect(message.remaining() + offset);
    direct.position(offset);
    direct.put(message.duplicate());
    return direct.position(offset).slice();
  }

  @Test
  void rejectsASchemaMessage() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    MessageSerializer.serialize(
        new WriteChannel(Channels.newChannel(out)), TestBatches.mixedSchema());

    assertThatThrownBy(
            () ->
                ArrowBatchCodec.decode(
                    ByteBuffer.wrap(out.toByteArray()), TestBatches.mixedSchema(), allocator))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessage("Record batch message is a Schema message, not a RecordBatch message");
  }

  @Test
  void rejectsBytesWithoutTheContinuationMarker() {
    assertThatThrownBy(
            () ->
                ArrowBatchCodec.decode(
                    ByteBuffer.wrap("not an arrow message".getBytes()),
                    TestBatches.mixedSchema(),
                    allocator))
        .isInstanceOf(InvalidBatchFormatException.class)
        .hasMessage(
            "Record batch message does not start with the IPC continuation marker 0xFFFFFFFF"
                + " (found 0x20746F6E)");
  }

  @Test
  void rejectsTruncatedMessagesWhereverTheyAreCut() {
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 50)) {
      byte[] message = ArrowBatchCodec.encode(root, Compression.NONE).array();
      int metadataLength = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN).getInt(4);

      assertThatThrownBy(() -> decode(Arrays.copyOf(message, 5)))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessage("Record batch message is truncated: 5 bytes, the prefix alone needs 8");
      assertThatThrownBy(() -> decode(Arrays.copyOf(message, 8 + metadataLength / 2)))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageStartingWith("Record batch message is truncated: the metadata needs");
      assertThatThrownBy(() -> decode(Arrays.copyOf(message, message.length - 8)))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageMatching(
              "Record batch message is truncated: the body needs \\d+ bytes but only \\d+ remain");
      for (int length = 0; length < message.length; length += 7) {
        byte[] cut = Arrays.copyOf(message, length);
        assertThatThrownBy(() -> decode(cut)).isInstanceOf(InvalidBatchFormatException.class);
      }
    }
  }

  @Test
  void rejectsTrailingBytes() {
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 10)) {
      byte[] message = ArrowBatchCodec.encode(root, Compression.NONE).array();

      assertThatThrownBy(() -> decode(Arrays.copyOf(message, message.length + 3)))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessage("Record batch message has 3 trailing bytes after its body");
    }
  }

  @Test
  void rejectsCorruptMetadata() {
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 10)) {
      byte[] message = ArrowBatchCodec.encode(root, Compression.NONE).array();
      int metadataLength = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN).getInt(4);
      for (int i = 8; i < 8 + metadataLength; i++) {
        byte[] corrupt = message.clone();
        corrupt[i] = (byte) 0xFF;
        // Some bytes (padding, null counts) can change without making the message invalid.
        try {
          decode(corrupt).close();
        } catch (InvalidBatchFormatException expected) {
          assertThat(expected).hasMessageStartingWith("Record batch");
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"LZ4", "ZSTD"})
  void rejectsCorruptCompressedBuffersWithoutLeaking(Compression compression) {
    try (VectorSchemaRoot root = TestBatches.w1(allocator, 1000, 3)) {
      byte[] message = ArrowBatchCodec.encode(root, compression).array();
      int failures = 0;
      for (int i = message.length - 1; i > message.length - 4000; i -= 37) {
        byte[] corrupt = message.clone();
        corrupt[i] ^= 0x5A;
        try {
          decode(corrupt).close();
        } catch (InvalidBatchFormatException expected) {
          failures++;
        }
      }
      assertThat(failures).isPositive();
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void randomlyCorruptedMessagesFailOnlyWithTheTypedException(Compression compression) {
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 64)) {
      byte[] message = ArrowBatchCodec.encode(root, compression).array();
      Random random = new Random(compression.ordinal());
      for (int attempt = 0; attempt < 1000; attempt++) {
        byte[] corrupt = message.clone();
        for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
          corrupt[random.nextInt(corrupt.length)] = (byte) random.nextInt(256);
        }
        // Either the batch still decodes (e.g. a value byte changed) or the failure is typed;
        // any other exception, or a leak found by tearDown, fails the test.
        try {
          decode(corrupt).close();
        } catch (InvalidBatchFormatException expected) {
          assertThat(expected.getMessage()).startsWith("Record batch");
        }
        try {
          ArrowBatchCodec.project(
              ByteBuffer.wrap(corrupt), TestBatches.mixedSchema(), new int[] {5, 2});
        } catch (InvalidBatchFormatException expected) {
          assertThat(expected.getMessage()).startsWith("Record batch");
        }
      }
    }
  }

  @Test
  void rejectsABatchOfAnotherSchema() {
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 10)) {
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.NONE);
      Schema fewerColumns = new Schema(TestBatches.mixedSchema().getFields().subList(0, 3));

      assertThatThrownBy(() -> ArrowBatchCodec.decode(message, fewerColumns, allocator))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageStartingWith("Record batch has 17 field nodes and 36 buffers but schema [id:");
    }
  }

  @Test
  void rejectsBuffersTooSmallForTheSchemaTypes() {
    Schema ints = new Schema(List.of(Field.nullable("v", new ArrowType.Int(32, true))));
    Schema longs = new Schema(List.of(Field.nullable("v", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(ints, allocator)) {
      IntVector vector = (IntVector) root.getVector(0);
      for (int i = 0; i < 1000; i++) {
        vector.setSafe(i, i);
      }
      root.setRowCount(1000);
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.NONE);

      assertThatThrownBy(() -> ArrowBatchCodec.decode(message, longs, allocator))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageContaining("Not enough capacity for fixed width data buffer");
    }
  }

  @Test
  void theCheckedDecodeRefusesOffsetsThatGoBackwardsAndOversizedBatches() {
    Schema strings = new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(strings, allocator)) {
      VarCharVector vector = (VarCharVector) root.getVector(0);
      for (int i = 0; i < 3; i++) {
        vector.setSafe(i, ("v" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      root.setRowCount(3);
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.NONE);
      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decodeChecked(message, strings, allocator, 1 << 20)) {
        assertThat(decoded.getVector(0).getObject(2).toString()).isEqualTo("v2");
      }
      assertThatThrownBy(() -> ArrowBatchCodec.decodeChecked(message, strings, allocator, 16))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageContaining("would take more than 16 bytes");

      // Offsets [0, 2, 4, 6] become [0, 5, 4, 6]: still inside the data, but going backwards.
      RecordBatchMessage parsed = RecordBatchMessage.parse(message);
      int bodyStart = 8 + ArrowBatchCodec.metadataLength(message.duplicate());
      int secondOffset = bodyStart + (int) parsed.bufferOffset(1) + 4;
      message.order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(secondOffset, 5);
      try (VectorSchemaRoot unchecked = ArrowBatchCodec.decode(message, strings, allocator)) {
        assertThat(unchecked.getRowCount()).isEqualTo(3);
      }
      assertThatThrownBy(() -> ArrowBatchCodec.decodeChecked(message, strings, allocator, 1 << 20))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageContaining("invalid values");
    }
  }

  @Test
  void failsWithOutOfMemoryWhenTheAllocatorIsFull() {
    try (VectorSchemaRoot root = TestBatches.w1(allocator, 1000, 3);
        BufferAllocator small = allocator.newChildAllocator("small", 0, 1024)) {
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.ZSTD);

      assertThatThrownBy(() -> ArrowBatchCodec.decode(message, TestBatches.w1Schema(), small))
          .isInstanceOf(OutOfMemoryException.class);
    }
  }

  @Test
  void refusesSchemasTheFormatCannotHold() {
    Schema views = new Schema(List.of(Field.nullable("s", ArrowType.Utf8View.INSTANCE)));
    Schema dictionary =
        new Schema(
            List.of(
                new Field(
                    "d",
                    new FieldType(
                        true,
                        ArrowType.Utf8.INSTANCE,
                        new DictionaryEncoding(1, false, new ArrowType.Int(32, true))),
                    List.of())));

    assertThatThrownBy(() -> ArrowBatchCodec.decode(ByteBuffer.allocate(8), views, allocator))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Field s has view type Utf8View; use Utf8, Binary or List");
    assertThatThrownBy(() -> ArrowBatchCodec.decode(ByteBuffer.allocate(8), dictionary, allocator))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Field d is dictionary-encoded; log batches do not carry dictionaries");
  }

  @Test
  void refusesARootWhoseVectorsDisagreeWithItsRowCount() {
    Schema ints = new Schema(List.of(Field.nullable("v", new ArrowType.Int(32, true))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(ints, allocator)) {
      ((IntVector) root.getVector(0)).setSafe(0, 1);
      root.getVector(0).setValueCount(1);
      root.setRowCount(1);
      root.getVector(0).setValueCount(0);

      assertThatThrownBy(() -> ArrowBatchCodec.encode(root, Compression.NONE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot encode column v: it has 0 values but the root has 1 rows");
    }
  }

  private VectorSchemaRoot decode(byte[] message) {
    return ArrowBatchCodec.decode(ByteBuffer.wrap(message), TestBatches.mixedSchema(), allocator);
  }
}
