package io.lakestream.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.awt.Color;
import java.awt.Rectangle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * Draws a {@link Curve} with JFreeChart and writes it as SVG with JFreeSVG, without a display: one
 * panel per unit stacked over a shared x axis (logarithmic when the sizes grow by factors), one
 * line per series, its legend entry the series' name.
 */
final class ScalingChart {
  private static final int WIDTH = 900;
  private static final int PANEL_HEIGHT = 260;
  private static final int TITLE_AND_LEGEND_HEIGHT = 120;

  private ScalingChart() {}

  /** Writes {@code curve} to {@code <directory>/scaling-<curve>.svg} and returns the file. */
  static Path write(Curve curve, Path directory) throws IOException {
    System.setProperty("java.awt.headless", "true");
    // Rotated labels (the value axes' units) drawn with drawString stay SVG text; the workaround
    // for old JDKs draws them as glyph outlines.
    TextUtils.setUseDrawRotatedStringWorkaround(false);
    ValueAxis sizes =
        curve.logarithmicSizes()
            ? new LogarithmicAxis(curve.sizeLabel())
            : new NumberAxis(curve.sizeLabel());
    // LogarithmicAxis labels its ticks as plain numbers written as SVG text; LogAxis draws a
    // superscripted 10^3 as glyph outlines.
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(sizes);
    plot.setGap(12);
    Map<String, XYSeriesCollection> byUnit = new LinkedHashMap<>();
    for (Curve.Series series : curve.series()) {
      XYSeries line = new XYSeries(series.name());
      for (int i = 0; i < series.sizes().size(); i++) {
        line.add(series.sizes().get(i), series.values().get(i));
      }
      byUnit.computeIfAbsent(series.unit(), unit -> new XYSeriesCollection()).addSeries(line);
    }
    for (Map.Entry<String, XYSeriesCollection> unit : byUnit.entrySet()) {
      NumberAxis values = new NumberAxis(unit.getKey());
      values.setAutoRangeIncludesZero(true);
      XYPlot panel =
          new XYPlot(unit.getValue(), null, values, new XYLineAndShapeRenderer(true, true));
      panel.setBackgroundPaint(Color.WHITE);
      panel.setDomainGridlinePaint(Color.LIGHT_GRAY);
      panel.setRangeGridlinePaint(Color.LIGHT_GRAY);
      plot.add(panel, 1);
    }
    JFreeChart chart = new JFreeChart(curve.title(), JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    int height = TITLE_AND_LEGEND_HEIGHT + PANEL_HEIGHT * byUnit.size();
    SVGGraphics2D graphics = new SVGGraphics2D(WIDTH, height);
    chart.draw(graphics, new Rectangle(0, 0, WIDTH, height));
    Files.createDirectories(directory);
    Path file = directory.resolve("scaling-" + curve.name() + ".svg");
    Files.writeString(file, graphics.getSVGDocument(), UTF_8);
    return file;
  }

  /** Writes every curve, returning the files in the same order. */
  static List<Path> writeAll(List<Curve> curves, Path directory) throws IOException {
    List<Path> files = new java.util.ArrayList<>();
    for (Curve curve : curves) {
      files.add(write(curve, directory));
    }
    return List.copyOf(files);
  }
}
