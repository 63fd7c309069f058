package org.rddp.cli.compare;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.DeviationRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.util.ShapeUtils;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

/**
 * {@code rddp compare}'s charts: a measure against message size, one line per series, both axes logarithmic with a
 * labelled tick at every power of two (or of four, sixteen, … when the range is wide), the spread of {@code --repeat}
 * runs drawn as a band from the smallest to the largest run, and the conditions in the subtitle. Each series keeps
 * one colour (Okabe and Ito's palette, which colour-blind readers tell apart; no yellow on white), one marker and one
 * dash in every chart: sockets and the RFC floor dashed, RDDP and EXS solid, an IPv6 twin its IPv4 series' colour
 * with a hollow marker and a dash-dot line, a Multipath TCP twin its TCP series' colour with a hollow marker and long
 * dashes.
 */
final class Chart {
    static final int WIDTH = 960;
    static final int HEIGHT = 600;
    /** At most this many labelled ticks on an axis: a wider range labels every 4th, 16th, … power of two. */
    private static final int MOST_TICKS = 12;
    private static final float LINE = 2.2f;
    private static final float[] DASHED = {8f, 5f};
    private static final float[] DOTTED = {2.5f, 4f};
    private static final float[] DASH_DOT = {10f, 4f, 2.5f, 4f};
    private static final float[] LONG_DASH = {16f, 5f};
    private static final float BAND_ALPHA = 0.18f;

    private Chart() {
    }

    /** How one series is drawn. */
    record Style(Color colour, Shape marker, float[] dash, boolean filled) {
    }

    /** The style of {@code series}, the same in every chart. */
    static Style style(Compare.Series series) {
        Compare.Series measured = series.measured();
        double s = 4.5;
        Style base = switch (measured) {
            case TCP_SOCKET -> new Style(Color.BLACK, new Rectangle2D.Double(-s, -s, 2 * s, 2 * s), DASHED, true);
            case RDDP_MPA -> new Style(new Color(0x0072B2), new Ellipse2D.Double(-s, -s, 2 * s, 2 * s), null, true);
            case EXS_MPA -> new Style(new Color(0x56B4E9), ShapeUtils.createDownTriangle((float) s), null, true);
            case MPA_FLOOR -> new Style(new Color(0x009E73), ShapeUtils.createUpTriangle((float) s), DOTTED, true);
            case SCTP_SOCKET -> new Style(new Color(0xE69F00), ShapeUtils.createDiamond((float) (s + 1)), DASHED,
                    true);
            case JDK_SCTP_SOCKET -> new Style(new Color(0x999999), ShapeUtils.createDiagonalCross((float) s, 1.5f),
                    DASHED, true);
            case NETTY_SCTP_SOCKET -> new Style(new Color(0x555555), new Ellipse2D.Double(-s, -s, 2 * s, 2 * s),
                    DOTTED, false);
            case RDDP_SCTP -> new Style(new Color(0xD55E00), ShapeUtils.createUpTriangle((float) (s + 1)), null,
                    true);
            case EXS_SCTP -> new Style(new Color(0xCC79A7), ShapeUtils.createRegularCross((float) s, 1.5f), null,
                    true);
            default -> throw new IllegalArgumentException(series.name());
        };
        return series.ipv6() ? new Style(base.colour(), base.marker(), DASH_DOT, false)
                : series.mptcp() ? new Style(base.colour(), base.marker(), LONG_DASH, false) : base;
    }

    /** The chart of {@code kind}'s points as PNG octets. */
    static byte[] png(Compare.Results results, String kind, String title, String unit, String conditions)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<String, YIntervalSeries> lines = new LinkedHashMap<>();
        List<Compare.Series> order = new ArrayList<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (Compare.Point point : results.points()) {
            if (!point.kind().equals(kind) || !(point.value() > 0)) {
                continue;
            }
            YIntervalSeries line = lines.get(point.series());
            if (line == null) {
                line = new YIntervalSeries(point.series());
                lines.put(point.series(), line);
                order.add(Compare.Series.labelled(point.series()));
            }
            double min = point.min() > 0 ? point.min() : point.value();
            double max = Math.max(point.max(), point.value());
            line.add(point.bytes(), point.value(), min, max);
            low = Math.min(low, min);
            high = Math.max(high, max);
        }
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        lines.values().forEach(data::addSeries);
        LogAxis size = sizeAxis(results, kind);
        LogAxis measure = axis(unit, lines.isEmpty() ? 1 : low, lines.isEmpty() ? 2 : high);
        return draw(title, conditions, new XYPlot(data, size, measure, renderer(order)));
    }

    /**
     * The message-size axis of {@code kind}'s chart: from its smallest to its largest point measured, so that latency,
     * measured up to {@code --latency-max}, does not share the bandwidth sweep's empty right half; the sweep's sizes
     * when nothing was measured.
     */
    static LogAxis sizeAxis(Compare.Results results, String kind) {
        java.util.IntSummaryStatistics measured = results.points().stream()
                .filter(point -> point.kind().equals(kind) && point.value() > 0)
                .mapToInt(Compare.Point::bytes).summaryStatistics();
        java.util.IntSummaryStatistics sizes = measured.getCount() > 0 ? measured
                : results.sizes().stream().mapToInt(Integer::intValue).summaryStatistics();
        return sizes.getCount() > 0 ? axis("message size, octets", sizes.getMin(), sizes.getMax())
                : axis("message size, octets", 1, 2);
    }

    /**
     * The load points of {@code results} as a percentile chart: per series (and RDDP's Writes, hollow on a dotted
     * line in its series' colour) the round trip (log scale) at each percentile of its distribution, the percentiles
     * spread as 1/(1 - p) on a log scale so that 50, 90, 99, 99.9 and 99.99 % lie equally apart and the tail, where
     * loss shows, gets the room. The slowest sample is left out (it has no place on that scale); the table has it.
     */
    static byte[] percentiles(Compare.Results results, String title, String conditions) throws IOException {
        System.setProperty("java.awt.headless", "true");
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        List<Compare.Series> order = new ArrayList<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        double deepest = 10;
        List<Integer> writes = new ArrayList<>();
        for (Compare.Point point : results.points()) {
            if (!Compare.isLoad(point.kind()) || point.percentiles() == null) {
                continue;
            }
            if (point.kind().equals(Compare.WRITE_LOAD)) {
                writes.add(order.size());
            }
            YIntervalSeries line = new YIntervalSeries(Compare.loadLabel(point));
            for (org.rddp.cli.perftest.PerfResult.Percentile at : point.percentiles()) {
                if (at.percent() < 50 || at.percent() >= 100 || !(at.usec() > 0)) {
                    continue;
                }
                double x = 100 / (100 - at.percent());
                line.add(x, at.usec(), at.usec(), at.usec());
                low = Math.min(low, at.usec());
                high = Math.max(high, at.usec());
                deepest = Math.max(deepest, x);
            }
            data.addSeries(line);
            order.add(Compare.Series.labelled(point.series()));
        }
        LogAxis percentile = new LogAxis("percentile (of round trips at most this long)");
        percentile.setBase(10);
        percentile.setRange(1.8, deepest * 1.2);
        percentile.setTickUnit(new NumberTickUnit(1));
        percentile.setMinorTickMarksVisible(false);
        percentile.setNumberFormatOverride(new PercentileFormat());
        percentile.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        LogAxis measure = axis("usec (round trip)", order.isEmpty() ? 1 : low, order.isEmpty() ? 2 : high);
        DeviationRenderer renderer = renderer(order);
        for (int index : writes) { // a series' Writes: its colour and marker, hollow, on a dotted line
            renderer.setSeriesShapesFilled(index, false);
            renderer.setSeriesStroke(index, new BasicStroke(LINE, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
                    new float[] {2f, 3f}, 0f));
        }
        return draw(title, conditions, new XYPlot(data, percentile, measure, renderer));
    }

    /**
     * Runs' throughput each second ({@code --timeline}) against time in seconds, each run from its own zero (when its
     * link went down, say) or, without one, from a second before the first run's first second; each of {@code marks}
     * a dashed vertical line with its label: what a failed path does to a transfer. A run whose label names SCTP or
     * MPA is drawn as RDDP over it is elsewhere.
     */
    static byte[] timeline(List<TimelineChartCommand.Run> runs, List<TimelineChartCommand.Mark> marks, String zero,
            String title, String conditions) throws IOException {
        return timeline(runs, runs.stream().map(run -> run.label().contains("SCTP") ? Compare.Series.RDDP_SCTP
                : run.label().contains("MPA") ? Compare.Series.RDDP_MPA : Compare.Series.TCP_SOCKET).toList(), marks,
                zero, "MB/sec (each second)", title, conditions);
    }

    /**
     * {@link #timeline(List, List, String, String, String)} with each run drawn as the series beside it in
     * {@code styles} is elsewhere, its throughput measured over the buckets {@code unit} names.
     */
    static byte[] timeline(List<TimelineChartCommand.Run> runs, List<Compare.Series> styles,
            List<TimelineChartCommand.Mark> marks, String zero, String unit, String title, String conditions)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        java.time.Instant start = runs.stream().map(run -> run.ends().getFirst())
                .min(java.util.Comparator.naturalOrder()).orElseThrow().minusSeconds(1);
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        List<Compare.Series> order = new ArrayList<>(styles);
        for (TimelineChartCommand.Run run : runs) {
            java.time.Instant origin = run.zero() != null ? run.zero() : start;
            YIntervalSeries line = new YIntervalSeries(run.label());
            for (int i = 0; i < run.ends().size(); i++) {
                double at = java.time.Duration.between(origin, run.ends().get(i)).toNanos() / 1e9;
                double mbps = run.mbps().get(i);
                line.add(at, mbps, mbps, mbps);
            }
            data.addSeries(line);
        }
        org.jfree.chart.axis.NumberAxis time = new org.jfree.chart.axis.NumberAxis("seconds from " + zero);
        org.jfree.chart.axis.NumberAxis measure = new org.jfree.chart.axis.NumberAxis(unit);
        DeviationRenderer renderer = renderer(order);
        float[][] dashes = {DASHED, DOTTED, DASH_DOT};
        Shape[] markers = {new Rectangle2D.Double(-4, -4, 8, 8), ShapeUtils.createDiamond(5),
            ShapeUtils.createDownTriangle(5)};
        for (int i = 0, again = 0; i < order.size(); i++) {
            if (order.subList(0, i).contains(order.get(i))) { // another run over the same: its colour, its own line
                renderer.setSeriesStroke(i, new BasicStroke(LINE, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
                        dashes[again % dashes.length], 0f));
                renderer.setSeriesShape(i, markers[again++ % markers.length]);
            }
        }
        XYPlot plot = new XYPlot(data, time, measure, renderer);
        for (TimelineChartCommand.Mark mark : marks) {
            org.jfree.chart.plot.ValueMarker line = new org.jfree.chart.plot.ValueMarker(mark.seconds(),
                    new Color(0x606060), new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
                            DASHED, 0f));
            line.setLabel(mark.label());
            line.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            line.setLabelAnchor(org.jfree.chart.ui.RectangleAnchor.TOP_RIGHT);
            line.setLabelTextAnchor(org.jfree.chart.ui.TextAnchor.TOP_LEFT);
            plot.addDomainMarker(line);
        }
        return draw(title, conditions, plot);
    }

    /**
     * One figure per series across {@code scenarios}, in their order: each series' value of {@code kind} at
     * {@code size} (bandwidth, latency) or, for {@link Compare#LOAD}, its 99th percentile, on a log axis, one line per
     * series: how each transport holds up as loss or delay grows.
     */
    static byte[] acrossScenarios(List<Compare.Results> scenarios, String kind, int size, String title, String unit,
            String conditions) throws IOException {
        System.setProperty("java.awt.headless", "true");
        org.jfree.data.category.DefaultCategoryDataset data = new org.jfree.data.category.DefaultCategoryDataset();
        List<Compare.Series> order = new ArrayList<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (Compare.Results results : scenarios) {
            String scenario = results.scenario() == null ? "as it is" : results.scenario();
            for (Compare.Point point : results.points()) {
                double value = kind.equals(Compare.LOAD) ? point.p99() == null ? 0 : point.p99() : point.value();
                if (!point.kind().equals(kind) || point.bytes() != size || !(value > 0)) {
                    continue;
                }
                Compare.Series series = Compare.Series.labelled(point.series());
                if (!order.contains(series)) {
                    order.add(series);
                }
                data.addValue(value, point.series(), scenario);
                low = Math.min(low, value);
                high = Math.max(high, value);
            }
        }
        org.jfree.chart.renderer.category.LineAndShapeRenderer renderer =
                new org.jfree.chart.renderer.category.LineAndShapeRenderer(true, true);
        for (Compare.Series series : order) {
            int i = data.getRowIndex(series.label);
            Style style = style(series);
            renderer.setSeriesPaint(i, style.colour());
            renderer.setSeriesShape(i, style.marker());
            renderer.setSeriesShapesFilled(i, style.filled());
            renderer.setSeriesStroke(i, style.dash() == null ? new BasicStroke(LINE)
                    : new BasicStroke(LINE, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, style.dash(), 0f));
        }
        org.jfree.chart.plot.CategoryPlot plot = new org.jfree.chart.plot.CategoryPlot(data,
                new org.jfree.chart.axis.CategoryAxis("network"), axis(unit, order.isEmpty() ? 1 : low,
                        order.isEmpty() ? 2 : high), renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xD0D0D0));
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        return png(chart, conditions);
    }

    /** Labels a tick at 1/(1 - p) with p as a percentage: 10 is "90%", 1000 "99.9%". */
    private static final class PercentileFormat extends java.text.NumberFormat {
        private static final long serialVersionUID = 1L;

        @Override
        public StringBuffer format(double number, StringBuffer toAppendTo, java.text.FieldPosition pos) {
            return toAppendTo.append(new DecimalFormat("0.####").format(100 - 100 / number)).append('%');
        }

        @Override
        public StringBuffer format(long number, StringBuffer toAppendTo, java.text.FieldPosition pos) {
            return format((double) number, toAppendTo, pos);
        }

        @Override
        public Number parse(String source, java.text.ParsePosition parsePosition) {
            throw new UnsupportedOperationException("labels only");
        }
    }

    /** A renderer drawing each of {@code order} in its {@link #style}, with its band. */
    private static DeviationRenderer renderer(List<Compare.Series> order) {
        DeviationRenderer renderer = new DeviationRenderer(true, true);
        renderer.setAlpha(BAND_ALPHA);
        for (int i = 0; i < order.size(); i++) {
            Style style = style(order.get(i));
            renderer.setSeriesPaint(i, style.colour());
            renderer.setSeriesFillPaint(i, style.colour());
            renderer.setSeriesShape(i, style.marker());
            renderer.setSeriesShapesFilled(i, style.filled());
            renderer.setSeriesStroke(i, style.dash() == null ? new BasicStroke(LINE)
                    : new BasicStroke(LINE, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, style.dash(), 0f));
        }
        renderer.setUseFillPaint(true);
        renderer.setDrawOutlines(true);
        renderer.setUseOutlinePaint(false);
        return renderer;
    }

    /** {@code plot} as a PNG of {@link #WIDTH} by {@link #HEIGHT}: white, titled, the conditions under the title. */
    private static byte[] draw(String title, String conditions, XYPlot plot) throws IOException {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xD0D0D0));
        plot.setRangeGridlinePaint(new Color(0xD0D0D0));
        return png(new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true), conditions);
    }

    /** {@code chart} as a PNG of {@link #WIDTH} by {@link #HEIGHT}: white, the conditions under the title. */
    private static byte[] png(JFreeChart chart, String conditions) throws IOException {
        chart.setBackgroundPaint(Color.WHITE);
        TextTitle subtitle = new TextTitle(conditions, new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        subtitle.setPaint(new Color(0x404040));
        chart.addSubtitle(0, subtitle);
        LegendTitle legend = chart.getLegend();
        legend.setPosition(RectangleEdge.BOTTOM);
        legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChartUtils.writeChartAsPNG(out, chart, WIDTH, HEIGHT);
        return out.toByteArray();
    }

    /**
     * A base-2 logarithmic axis from a little below {@code low} to a little above {@code high}, a labelled tick at
     * every power of two, or of 4, 16, … when that would be more than {@value #MOST_TICKS} ticks.
     */
    static LogAxis axis(String label, double low, double high) {
        LogAxis axis = new LogAxis(label);
        axis.setBase(2);
        double from = low / 1.25;
        double to = high * 1.25;
        axis.setRange(from, to);
        axis.setTickUnit(new NumberTickUnit(tickStep(from, to)));
        axis.setMinorTickMarksVisible(false);
        axis.setNumberFormatOverride(new DecimalFormat("#,##0.###"));
        axis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        return axis;
    }

    /** Powers of two between ticks: 1, 2, 4, … so that {@code from..to} has at most {@value #MOST_TICKS} ticks. */
    static int tickStep(double from, double to) {
        double powers = Math.log(to / from) / Math.log(2);
        int step = 1;
        while (powers / step > MOST_TICKS) {
            step *= 2;
        }
        return step;
    }
}
