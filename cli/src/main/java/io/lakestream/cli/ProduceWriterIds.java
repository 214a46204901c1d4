package io.lakestream.cli;

import io.lakestream.client.Table;
import io.lakestream.client.WriterOptions;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The writer id under which {@code produce} appends one file to a log table: a digest of the
 * table's id, the file's name and its rows, so that running the command again on the same file
 * sends the same batches under the same id and the server stores each once.
 *
 * <p>The batches are the same only if they are cut at the same rows, so the options the writer
 * batches by are fixed here and part of the digest: changing them (or this encoding, by its
 * version) makes a new writer whose rows a server holding the old writer's would store again.
 */
final class ProduceWriterIds {
  /** The batching of produce's appends: the client's defaults, fixed for every run. */
  static final WriterOptions OPTIONS =
      WriterOptions.defaults()
          .withBatchRows(WriterOptions.DEFAULT_BATCH_ROWS)
          .withBatchBytes(WriterOptions.DEFAULT_BATCH_BYTES);

  private static final String VERSION = "lakestream produce writer id v1";

  private ProduceWriterIds() {}

  /**
   * The id for {@code rows} of {@code file} (its name only: the same file reached by another path
   * is the same file; {@code -} for standard input) appended to {@code table}.
   */
  static long of(Table table, String file, List<Object[]> rows) {
    MessageDigest digest = sha256();
    update(digest, VERSION);
    update(digest, table.id());
    update(digest, file.equals("-") ? "-" : String.valueOf(Path.of(file).getFileName()));
    update(digest, OPTIONS.batchRows() + "/" + OPTIONS.batchBytes());
    for (Object[] row : rows) {
      digest.update((byte) 'R');
      for (Object value : row) {
        if (value == null) {
          digest.update((byte) 'N');
        } else {
          update(digest, value.getClass().getSimpleName());
          update(digest, text(value));
        }
      }
    }
    return ByteBuffer.wrap(digest.digest()).getLong() & Long.MAX_VALUE;
  }

  private static String text(Object value) {
    if (value instanceof byte[] bytes) {
      return HexFormat.of().formatHex(bytes);
    }
    return value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString();
  }

  /** Adds the text with its length first, so that no two sequences of texts digest alike. */
  private static void update(MessageDigest digest, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
    digest.update(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("The JVM has no SHA-256", e);
    }
  }
}
