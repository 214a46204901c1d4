package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.io.FileInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Prefix listing and deletion of the local file IO, which the orphan-file sweep relies on. */
class LocalFileIOPrefixTest {
  @TempDir Path directory;

  @Test
  void listsEveryFileBelowADirectoryPrefixWithSizeAndModificationTime() throws Exception {
    Path data = directory.resolve("table/data");
    Files.createDirectories(data.resolve("p=1"));
    Files.write(data.resolve("a.parquet"), new byte[3]);
    Files.write(data.resolve("p=1/b.parquet"), new byte[5]);
    Files.createDirectories(directory.resolve("table/data2"));
    Files.write(directory.resolve("table/data2/c.parquet"), new byte[7]);
    Instant modified = Instant.parse("2026-01-02T03:04:05Z");
    Files.setLastModifiedTime(data.resolve("a.parquet"), FileTime.from(modified));

    LocalFileIO io = new LocalFileIO();
    String prefix = data.toUri().toString(); // file:///.../data/
    Map<String, FileInfo> listed = new HashMap<>();
    io.listPrefix(prefix).forEach(file -> listed.put(file.location(), file));
    assertThat(listed.keySet())
        .containsExactlyInAnyOrder(prefix + "a.parquet", prefix + "p=1/b.parquet");
    assertThat(listed.get(prefix + "a.parquet").size()).isEqualTo(3);
    assertThat(listed.get(prefix + "a.parquet").createdAtMillis())
        .isEqualTo(modified.toEpochMilli());
    assertThat(listed.get(prefix + "p=1/b.parquet").size()).isEqualTo(5);
    // Listed locations open as files.
    assertThat(io.newInputFile(prefix + "p=1/b.parquet").getLength()).isEqualTo(5);

    assertThat(io.listPrefix(directory.resolve("missing").toString())).isEmpty();

    io.deletePrefix(prefix);
    assertThat(io.listPrefix(prefix)).isEmpty();
    assertThat(directory.resolve("table/data2/c.parquet")).exists();
  }
}
