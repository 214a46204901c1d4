package org.apache.parquet;

import java.util.HashMap;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;

/**
 * Read options built without Hadoop: {@link ParquetReadOptions.Builder} loads {@code
 * ParquetInputFormat} (a Hadoop MapReduce class) even with a plain configuration, so the command
 * line, which ships no Hadoop, calls the package-private constructor from this package. No filters,
 * no checksum verification, no vectored I/O.
 */
public final class PlainReadOptions {
  private static final int MAX_ALLOCATION = 8 * 1024 * 1024;

  private PlainReadOptions() {}

  public static ParquetReadOptions of(CompressionCodecFactory codecs) {
    return new ParquetReadOptions(
        false,
        false,
        false,
        false,
        false,
        false,
        false,
        false,
        false,
        FilterCompat.NOOP,
        ParquetMetadataConverter.NO_FILTER,
        codecs,
        new HeapByteBufferAllocator(),
        MAX_ALLOCATION,
        new HashMap<>(),
        null,
        null,
        new PlainParquetConfiguration());
  }
}
