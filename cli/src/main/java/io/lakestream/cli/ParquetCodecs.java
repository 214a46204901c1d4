package io.lakestream.cli;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Parquet page decompression without Hadoop's codec classes: uncompressed, snappy (snappy-java),
 * gzip (the JDK) and zstd (the client's zstd-jni). Other codecs fail naming the codec.
 */
final class ParquetCodecs implements CompressionCodecFactory {
  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("the command line reads Parquet only");
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return switch (codec) {
      case UNCOMPRESSED, SNAPPY, GZIP, ZSTD -> new Decompressor(codec);
      default ->
          throw new IllegalArgumentException(
              "Parquet compression " + codec + " is not supported (snappy, gzip, zstd, none are)");
    };
  }

  @Override
  public void release() {}

  private record Decompressor(CompressionCodecName codec) implements BytesInputDecompressor {
    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      byte[] input = bytes.toByteArray();
      byte[] output =
          switch (codec) {
            case UNCOMPRESSED -> input;
            case SNAPPY -> Snappy.uncompress(input);
            case ZSTD -> Zstd.decompress(input, uncompressedSize);
            case GZIP -> {
              try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(input))) {
                yield in.readAllBytes();
              }
            }
            default -> throw new IllegalStateException(codec.toString());
          };
      if (output.length != uncompressedSize) {
        throw new IOException(
            codec + " page decompressed to " + output.length + " bytes, not " + uncompressedSize);
      }
      return BytesInput.from(output);
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
        throws IOException {
      byte[] in = new byte[compressedSize];
      input.get(in);
      output.put(decompress(BytesInput.from(in), uncompressedSize).toByteArray());
    }

    @Override
    public void release() {}
  }
}
