package io.lakestream.client.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ArrowBatchProjectionTest {
  private static final int W1_ROWS = 10_000;
  private static final int[] B0_S0 = {0, 15};

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  static Stream<Arguments> projections() {
    List<int[]> selections =
        List.of(
            new int[] {0},
            new int[] {2},
            new int[] {5},
            new int[] {13, 0},
            new int[] {4, 2, 5, 9},
            new int[] {12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 13},
            new int[] {});
    return Stream.of(Compression.values())
        .flatMap(compression -> selections.stream().map(s -> Arguments.of(compression, s)));
  }

  @ParameterizedTest
  @MethodSource("projections")
  void projectingThenDecodingEqualsDecodingThenSelecting(Compression compression, int[] columns) {
    Schema schema = TestBatches.mixedSchema();
    try (VectorSchemaRoot original = TestBatches.mixed(allocator, 200)) {
      ByteBuffer message = ArrowBatchCodec.encode(original, compression);

      ByteBuffer projected = ArrowBatchCodec.project(message, schema, columns);

      Schema projectedSchema = ArrowBatchCodec.projectSchema(schema, columns);
      try (VectorSchemaRoot full = ArrowBatchCodec.decode(message, schema, allocator);
          VectorSchemaRoot decoded =
              ArrowBatchCodec.decode(projected, projectedSchema, allocator)) {
        VectorSchemaRoot expected = TestBatches.select(full, columns);
        assertThat(decoded.getRowCount()).isEqualTo(200);
        assertThat(decoded.getSchema()).isEqualTo(expected.getSchema());
        assertThat(decoded.equals(expected)).isTrue();
      }
      assertThat(projected.remaining() % 8).isZero();
      assertThat(message.position()).isZero();
    }
  }

  @Test
  void projectingAProjectionWorks() {
    Schema schema = TestBatches.mixedSchema();
    try (VectorSchemaRoot original = TestBatches.mixed(allocator, 30)) {
      ByteBuffer message = ArrowBatchCodec.encode(original, Compression.LZ4);
      int[] first = {5, 2, 4};
      int[] second = {2, 0};

      ByteBuffer twice =
          ArrowBatchCodec.project(
              ArrowBatchCodec.project(message, schema, first),
              ArrowBatchCodec.projectSchema(schema, first),
              second);

      try (VectorSchemaRoot decoded =
          ArrowBatchCodec.decode(
              twice, ArrowBatchCodec.projectSchema(schema, new int[] {4, 5}), allocator)) {
        assertThat(decoded.equals(TestBatches.select(original, new int[] {4, 5}))).isTrue();
      }
    }
  }

  @Test
  void projectionOfTwoW1ColumnsIsAtMostFifteenPercentOfTheBatch() {
    try (VectorSchemaRoot root = TestBatches.w1(allocator, W1_ROWS, 11)) {
      for (Compression compression : Compression.values()) {
        ByteBuffer full = ArrowBatchCodec.encode(root, compression);
        ByteBuffer projected = ArrowBatchCodec.project(full, TestBatches.w1Schema(), B0_S0);
        double ratio = (double) projected.remaining() / full.remaining();
        System.out.printf(
            "W1 %d rows, %s: full %d bytes, projected (b0, s0) %d bytes, ratio %.4f%n",
            W1_ROWS, compression, full.remaining(), projected.remaining(), ratio);
        if (compression == Compression.NONE) {
          assertThat(ratio).isLessThanOrEqualTo(0.15);
        }
        try (VectorSchemaRoot decoded =
            ArrowBatchCodec.decode(
                projected,
                ArrowBatchCodec.projectSchema(TestBatches.w1Schema(), B0_S0),
                allocator)) {
          assertThat(decoded.equals(TestBatches.select(root, B0_S0))).isTrue();
        }
      }
    }
  }

  @Test
  void aPlanFromTheMessageHeadAssemblesTheSameBytesAsProject() {
    Schema schema = TestBatches.mixedSchema();
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 77)) {
      for (Compression compression : Compression.values()) {
        ByteBuffer message = ArrowBatchCodec.encode(root, compression);
        int[] columns = {6, 0, 3};
        int metadataEnd = 8 + ArrowBatchCodec.metadataLength(message);
        ByteBuffer head = message.slice(0, metadataEnd);
        ProjectionPlan plan =
            ArrowBatchCodec.planProjection(head, message.remaining(), schema, columns);

        ByteBuffer assembled = ByteBuffer.allocate((int) plan.messageSize());
        assembled.put(plan.metadata());
        for (int i = 0; i < plan.bufferCount(); i++) {
          assembled.put(message.slice((int) plan.sourceOffset(i), (int) plan.length(i)));
          assembled.put(new byte[plan.padding(i)]);
        }
        assertThat(assembled.flip())
            .as("%s", compression)
            .isEqualTo(ArrowBatchCodec.project(message, schema, columns));
      }
    }
  }

  @Test
  void aPlanNeedsTheWholeMetadataInItsHead() {
    Schema schema = TestBatches.mixedSchema();
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 5)) {
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.NONE);
      ByteBuffer cut = message.slice(0, 8 + ArrowBatchCodec.metadataLength(message) - 1);
      assertThatThrownBy(
              () -> ArrowBatchCodec.planProjection(cut, message.remaining(), schema, new int[] {0}))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageStartingWith("Record batch message is truncated: the metadata needs");
    }
  }

  @Test
  void rejectsBadColumnSelections() {
    Schema schema = TestBatches.mixedSchema();
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 5)) {
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.NONE);

      assertThatThrownBy(() -> ArrowBatchCodec.project(message, schema, new int[] {14}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Column 14 does not exist: the schema has 14 columns");
      assertThatThrownBy(() -> ArrowBatchCodec.project(message, schema, new int[] {-1}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Column -1 does not exist: the schema has 14 columns");
      assertThatThrownBy(() -> ArrowBatchCodec.project(message, schema, new int[] {3, 1, 3}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Column 3 is selected twice");
    }
  }

  @Test
  void rejectsAMessageOfAnotherSchema() {
    try (VectorSchemaRoot root = TestBatches.mixed(allocator, 5)) {
      ByteBuffer message = ArrowBatchCodec.encode(root, Compression.NONE);

      assertThatThrownBy(
              () -> ArrowBatchCodec.project(message, TestBatches.w1Schema(), new int[] {0}))
          .isInstanceOf(InvalidBatchFormatException.class)
          .hasMessageStartingWith("Record batch has 17 field nodes and 36 buffers but schema");
    }
  }
}
