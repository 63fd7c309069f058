package org.rddp.cli.compare;

import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** {@code rddp compare}'s charts: a measure against message size, one line per series, both axes logarithmic. */
final class Chart {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;

    private Chart() {
    }

    /** Draws the points of {@code kind} as a PNG into {@code file}. */
    static void write(Compare.Results results, String kind, String title, String unit, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<String, XYSeries> lines = new LinkedHashMap<>();
        for (Compare.Point point : results.points()) {
            if (point.kind().equals(kind) && point.value() > 0) {
                lines.computeIfAbsent(point.series(), XYSeries::new).add(point.bytes(), point.value());
            }
        }
        XYSeriesCollection data = new XYSeriesCollection();
        lines.values().forEach(data::addSeries);
        LogAxis size = new LogAxis("message size, octets");
        size.setBase(2);
        size.setTickUnit(new NumberTickUnit(2)); // every fourfold size, printed as a number
        size.setNumberFormatOverride(new DecimalFormat("#,##0"));
        LogAxis measure = new LogAxis(unit);
        measure.setTickUnit(new NumberTickUnit(1)); // every decade
        measure.setNumberFormatOverride(new DecimalFormat("#,##0.##"));
        XYPlot plot = new XYPlot(data, size, measure, new XYLineAndShapeRenderer(true, true));
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    }
}
