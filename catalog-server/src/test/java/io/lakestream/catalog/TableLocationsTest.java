package io.lakestream.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.BadRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every spelling of a location comes to the one the storage touches; no spelling escapes. */
class TableLocationsTest {
  @TempDir Path directory;

  @Test
  void localSpellingsOfOneDirectoryAreOneCanonicalLocation() throws Exception {
    Path real = directory.toRealPath();
    String expected = "file:" + real.resolve("w/b/t");
    for (String spelling :
        List.of(
            "file:" + real + "/w/b/t",
            "file://" + real + "/w/b/t",
            "file://" + real + "/w/b/t/",
            "local://" + real + "/w/b/t",
            real + "/w/b/t",
            "file:" + real + "//w//b/t//",
            "file:" + real + "/w/a/../b/./t",
            "file://" + real + "/w/a/%2E%2E/b/t",
            "file://" + real + "/w/a%2F..%2Fb/t")) {
      assertThat(TableLocations.canonical(spelling)).as(spelling).isEqualTo(expected);
    }
    assertThat(TableLocations.canonical("file:/")).isEqualTo("file:/");
    assertThat(TableLocations.canonical("file:" + real + "/w/../../..")).isEqualTo("file:/");
  }

  @Test
  void symbolicLinksAreFollowedWhereTheyExist() throws Exception {
    Path outside = Files.createDirectories(directory.resolve("outside"));
    Path warehouse = Files.createDirectories(directory.resolve("w"));
    Files.createSymbolicLink(warehouse.resolve("link"), outside);
    TableLocations locations = new TableLocations("file:" + warehouse, List.of());
    assertThatThrownBy(() -> locations.checkAllowed("file:" + warehouse + "/link/t", "table a.t"))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("link/t")
        .hasMessageContaining("under the warehouse location");
    assertThat(locations.checkAllowed("file:" + warehouse + "/a/t", "table a.t"))
        .isEqualTo("file:" + warehouse.toRealPath().resolve("a/t"));
  }

  @Test
  void onlyTheWarehouseAndAllowedLocationsAreAllowed() throws Exception {
    Path real = directory.toRealPath();
    TableLocations locations =
        new TableLocations("file:" + real + "/w/", List.of("s3://bucket/lake", "/srv/extra"));
    assertThat(locations.allowed())
        .containsExactly("file:" + real + "/w", "s3://bucket/lake", "file:/srv/extra");
    locations.checkAllowed("file:" + real + "/w/a/t", "table a.t");
    locations.checkAllowed("s3a://bucket/lake/a/t", "table a.t");
    locations.checkAllowed("/srv/extra/t", "table a.t");
    for (String outside :
        List.of(
            "file:" + real + "/w2/t",
            "file:" + real + "/w/../x",
            "file:" + real,
            "file:/",
            "/tmp/t",
            "s3://bucket/lake2/t",
            "s3://other/lake/t",
            "s3://bucket/lake/../x",
            "s3://bucket/lake//t",
            "hdfs://nn/w/t",
            "file://host/w/t",
            "w/t")) {
      assertThatThrownBy(() -> locations.checkAllowed(outside, "table a.t"))
          .as(outside)
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining(outside);
    }
    assertThat(locations.namespaceDirectory(Namespace.of("a", "b")))
        .isEqualTo("file:" + real + "/w/a/b");
  }

  @Test
  void overlapMeansEqualInsideOrAround() {
    assertThat(TableLocations.overlap("file:/w/b/t", "file:/w/b/t")).isTrue();
    assertThat(TableLocations.overlap("file:/w/b/t", "file:/w/b/t/data")).isTrue();
    assertThat(TableLocations.overlap("file:/w/b", "file:/w/b/t")).isTrue();
    assertThat(TableLocations.overlap("file:/", "file:/w/b/t")).isTrue();
    assertThat(TableLocations.overlap("file:/w/b/t", "file:/w/b/t2")).isFalse();
    assertThat(TableLocations.overlap("file:/w/b/t", "s3://w/b/t")).isFalse();
  }
}
