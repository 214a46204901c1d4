package io.lakestream.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

class ScalingChartTest {
  @TempDir Path results;

  @Test
  void writesAnSvgDocumentWithALegendEntryPerSeries() throws Exception {
    Curve curve =
        new Curve.Builder("catalog", "Catalog by tables", "tables", true)
            .add("load_p50_ms", "ms", 1000, 1.5)
            .add("load_p99_ms", "ms", 1000, 4.0)
            .add("server_rss_mib", "MiB", 1000, 300)
            .add("load_p50_ms", "ms", 10000, 1.7)
            .add("load_p99_ms", "ms", 10000, 5.0)
            .add("server_rss_mib", "MiB", 10000, 420)
            .build();

    Path file = ScalingChart.write(curve, results);

    assertThat(file).isEqualTo(results.resolve("scaling-catalog.svg"));
    List<String> texts = svgTexts(file);
    assertThat(texts).contains("Catalog by tables", "load_p50_ms", "load_p99_ms", "server_rss_mib");
    // One panel per unit, each with its unit as the axis label, and the shared x axis label.
    assertThat(texts).contains("ms", "MiB", "tables");
    // The logarithmic size axis labels its decades as plain numbers.
    assertThat(texts).contains("1000", "10000");
  }

  @Test
  void stepSizedCurvesStartAtZero() throws Exception {
    Curve curve =
        new Curve.Builder("memory", "Memory over a soak", "seconds", false)
            .add("server_rss_mib", "MiB", 0, 400)
            .add("server_rss_mib", "MiB", 10, 450)
            .build();

    assertThat(svgTexts(ScalingChart.write(curve, results))).contains("server_rss_mib", "seconds");
  }

  @Test
  void figuresAreEachSeriesBesideItsFirstSize() {
    Curve curve =
        new Curve.Builder("buckets", "Buckets", "buckets", true)
            .add("append_rows_per_s", "rows/s", 1, 400_000)
            .add("append_rows_per_s", "rows/s", 64, 100_000)
            .build();

    List<Figure> figures = curve.figures();

    assertThat(figures)
        .extracting(Figure::name)
        .containsExactly(
            "buckets_1_buckets_append_rows_per_s", "buckets_64_buckets_append_rows_per_s");
    assertThat(figures.get(1).baselineValue()).isEqualTo(400_000);
    assertThat(figures.get(1).ratio()).isEqualTo(0.25);
    assertThat(figures.get(1).baseline()).isEqualTo("same at 1 buckets");
  }

  @Test
  void aSeriesWithoutValuesIsRefused() {
    assertThatThrownBy(() -> new Curve.Series("x_ms", "ms", List.of(1.0), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 sizes and 0 values");
  }

  /** Parses the file as XML (failing on anything not well formed) and returns its text elements. */
  static List<String> svgTexts(Path file) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    // JFreeSVG's documents name the SVG 1.1 DTD; the parse checks well-formedness offline.
    factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    Document document = factory.newDocumentBuilder().parse(file.toFile());
    assertThat(document.getDocumentElement().getLocalName()).isEqualTo("svg");
    NodeList texts = document.getElementsByTagNameNS("*", "text");
    List<String> contents = new ArrayList<>();
    for (int i = 0; i < texts.getLength(); i++) {
      contents.add(texts.item(i).getTextContent().trim());
    }
    return contents;
  }
}
