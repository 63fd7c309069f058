package org.rddp.cli.compare;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.imageio.ImageIO;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;

/**
 * {@code rddp compare}'s charts, drawn with XChart: a measure against message size, one line per series, both axes
 * logarithmic (base 2) with a labelled tick at powers of two, the spread of {@code --repeat} runs drawn as a band from
 * the smallest to the largest run, and the conditions under the title. Each series keeps one colour (Okabe and Ito's
 * palette, which colour-blind readers tell apart; no yellow on white), one marker and one dash in every chart:
 * sockets and the RFC floor dashed, RDDP and EXS solid, an IPv6 twin its IPv4 series' colour with a hollow marker and
 * a dash-dot line, a Multipath TCP twin its TCP series' colour with a hollow marker and long dashes. A logarithmic
 * axis is drawn as a linear one over the logarithms, its ticks labelled with the values they stand for.
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
    private static final float[] WRITES = {2f, 3f};
    private static final int BAND_ALPHA = 46; // of 255
    private static final Color GRID = new Color(0xD0D0D0);
    private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 18);
    private static final Font CONDITIONS = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    private static final Font TICKS = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

    private Chart() {
    }

    /** How one series is drawn. */
    record Style(Color colour, Shape marker, float[] dash, boolean filled) {
    }

    /**
     * A base-2 logarithmic axis: its title, the values it spans and the powers of two between labelled ticks. Drawn
     * as a linear axis over log2 of the values.
     */
    record Axis(String label, double from, double to, int step) {
        /** Where {@code value} lies on the drawn axis. */
        double at(double value) {
            return Math.log(value) / Math.log(2);
        }

        /**
         * The label of a tick at {@code at} on the drawn axis: the value it stands for, a power of two at a whole
         * {@code at}. Every tick is labelled, and no two alike: XChart draws an axis only when its labels differ, and
         * spreads its ticks until they all do (forever, were two always alike).
         */
        String tick(double at) {
            double value = Math.pow(2, at);
            if (!(value >= 1e-3 && value < 1e15)) { // beyond the figures measured: told apart by the exponent
                return "2^" + new DecimalFormat("0.###").format(at);
            }
            return Math.abs(at - Math.round(at)) < 1e-6 ? new DecimalFormat("#,##0.###").format(value)
                    : new DecimalFormat("#,##0.###").format(new java.math.BigDecimal(value).round(
                            new java.math.MathContext(3)));
        }

        /**
         * Pixels between ticks on {@code pixels} of this axis: a tick every {@link #step} powers of two, or about six
         * in all where the axis spans less than three powers (some between powers of two, then).
         */
        int spacing(int pixels) {
            double powers = at(to) - at(from);
            return (int) Math.max(40, 0.85 * pixels * (powers < 3 ? 1.0 / 6 : step / powers));
        }
    }

    /** The style of {@code series}, the same in every chart. */
    static Style style(Compare.Series series) {
        Compare.Series measured = series.measured();
        double s = 4.5;
        Style base = switch (measured) {
            case TCP_SOCKET -> new Style(Color.BLACK, new Rectangle2D.Double(-s, -s, 2 * s, 2 * s), DASHED, true);
            case RDDP_MPA -> new Style(new Color(0x0072B2), new Ellipse2D.Double(-s, -s, 2 * s, 2 * s), null, true);
            case EXS_MPA -> new Style(new Color(0x56B4E9), triangle(s, false), null, true);
            case MPA_FLOOR -> new Style(new Color(0x009E73), triangle(s, true), DOTTED, true);
            case SCTP_SOCKET -> new Style(new Color(0xE69F00), diamond(s + 1), DASHED, true);
            case JDK_SCTP_SOCKET -> new Style(new Color(0x999999), cross(s, 1.5, true), DASHED, true);
            case NETTY_SCTP_SOCKET -> new Style(new Color(0x555555), new Ellipse2D.Double(-s, -s, 2 * s, 2 * s),
                    DOTTED, false);
            case RDDP_SCTP -> new Style(new Color(0xD55E00), triangle(s + 1, true), null, true);
            case EXS_SCTP -> new Style(new Color(0xCC79A7), cross(s, 1.5, false), null, true);
            default -> throw new IllegalArgumentException(series.name());
        };
        return series.ipv6() ? new Style(base.colour(), base.marker(), DASH_DOT, false)
                : series.mptcp() ? new Style(base.colour(), base.marker(), LONG_DASH, false) : base;
    }

    /** The chart of {@code kind}'s points as PNG octets. */
    static byte[] png(Compare.Results results, String kind, String title, String unit, String conditions)
            throws IOException {
        Map<String, List<Compare.Point>> lines = new LinkedHashMap<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (Compare.Point point : results.points()) {
            if (point.kind().equals(kind) && point.value() > 0) {
                lines.computeIfAbsent(point.series(), k -> new ArrayList<>()).add(point);
                low = Math.min(low, point.min() > 0 ? point.min() : point.value());
                high = Math.max(high, Math.max(point.max(), point.value()));
            }
        }
        Axis size = sizeAxis(results, kind);
        Axis measure = axis(unit, lines.isEmpty() ? 1 : low, lines.isEmpty() ? 2 : high);
        XYChart chart = chart(size, measure);
        lines.forEach((label, points) -> {
            points.sort(java.util.Comparator.comparingInt(Compare.Point::bytes));
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            List<Double> band = new ArrayList<>();
            List<Double> bandX = new ArrayList<>();
            for (Compare.Point point : points) {
                x.add(size.at(point.bytes()));
                y.add(measure.at(point.value()));
                bandX.add(size.at(point.bytes()));
                band.add(measure.at(Math.max(point.max(), point.value())));
            }
            for (Compare.Point point : points.reversed()) {
                bandX.add(size.at(point.bytes()));
                band.add(measure.at(point.min() > 0 ? point.min() : point.value()));
            }
            Style style = style(Compare.Series.labelled(label));
            band(chart, label, bandX, band, style.colour());
            line(chart, label, x, y, style, style.dash(), style.filled());
        });
        return draw(title, conditions, chart);
    }

    /**
     * The message-size axis of {@code kind}'s chart: from its smallest to its largest point measured, so that latency,
     * measured up to {@code --latency-max}, does not share the bandwidth sweep's empty right half; the sweep's sizes
     * when nothing was measured.
     */
    static Axis sizeAxis(Compare.Results results, String kind) {
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
        double low = Double.MAX_VALUE;
        double high = 0;
        double deepest = 10;
        for (Compare.Point point : results.points()) {
            for (org.rddp.cli.perftest.PerfResult.Percentile at : percentiles(point)) {
                low = Math.min(low, at.usec());
                high = Math.max(high, at.usec());
                deepest = Math.max(deepest, 100 / (100 - at.percent()));
            }
        }
        Axis measure = axis("usec (round trip)", high == 0 ? 1 : low, high == 0 ? 2 : high);
        XYChart chart = chart("percentile (of round trips at most this long)", Math.log10(1.8),
                Math.log10(deepest * 1.2), Chart::percentileTick, measure);
        chart.getStyler().setXAxisTickMarkSpacingHint((int) (0.85 * WIDTH / Math.log10(deepest * 1.2 / 1.8))); // 9s
        for (Compare.Point point : results.points()) {
            List<org.rddp.cli.perftest.PerfResult.Percentile> at = percentiles(point);
            if (at.isEmpty()) {
                continue;
            }
            Style style = style(Compare.Series.labelled(point.series()));
            boolean writes = point.kind().equals(Compare.WRITE_LOAD); // its colour and marker, hollow, dotted
            line(chart, Compare.loadLabel(point), at.stream().map(p -> Math.log10(100 / (100 - p.percent())))
                    .toList(), at.stream().map(p -> measure.at(p.usec())).toList(), style,
                    writes ? WRITES : style.dash(), !writes && style.filled());
        }
        return draw(title, conditions, chart);
    }

    /** The percentiles of a load point {@link #percentiles(Compare.Results, String, String)} draws. */
    private static List<org.rddp.cli.perftest.PerfResult.Percentile> percentiles(Compare.Point point) {
        if (!Compare.isLoad(point.kind()) || point.percentiles() == null) {
            return List.of();
        }
        return point.percentiles().stream().filter(at -> at.percent() >= 50 && at.percent() < 100 && at.usec() > 0)
                .toList();
    }

    /**
     * A tick at log10(1/(1 - p)) labelled p as a percentage: 1 is "90%", 3 "99.9%", 0.5 "68.4%"; no two alike (see
     * {@link Axis#tick}).
     */
    static String percentileTick(double at) {
        if (at < -12 || at > 12) {
            return "1 - 10^" + new DecimalFormat("0.###").format(-at);
        }
        java.math.BigDecimal missed = new java.math.BigDecimal(100 / Math.pow(10, at)).round(
                new java.math.MathContext(3));
        return java.math.BigDecimal.valueOf(100).subtract(missed).stripTrailingZeros().toPlainString() + "%";
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
        java.time.Instant start = runs.stream().map(run -> run.ends().getFirst())
                .min(java.util.Comparator.naturalOrder()).orElseThrow().minusSeconds(1);
        XYChart chart = chart("seconds from " + zero, null, null, null, null);
        chart.setYAxisTitle(unit);
        double top = 0;
        float[][] dashes = {DASHED, DOTTED, DASH_DOT};
        Shape[] markers = {new Rectangle2D.Double(-4, -4, 8, 8), diamond(5), triangle(5, false)};
        for (int i = 0, again = 0; i < runs.size(); i++) {
            TimelineChartCommand.Run run = runs.get(i);
            java.time.Instant origin = run.zero() != null ? run.zero() : start;
            List<Double> x = new ArrayList<>();
            for (java.time.Instant end : run.ends()) {
                x.add(java.time.Duration.between(origin, end).toNanos() / 1e9);
            }
            top = Math.max(top, run.mbps().stream().mapToDouble(Double::doubleValue).max().orElse(0));
            Style style = style(styles.get(i));
            if (styles.subList(0, i).contains(styles.get(i))) { // another run over the same: its colour, its own line
                style = new Style(style.colour(), markers[again % markers.length], dashes[again++ % dashes.length],
                        style.filled());
            }
            line(chart, run.label(), x, run.mbps(), style, style.dash(), style.filled());
        }
        chart.getStyler().setYAxisMin(0.0).setYAxisMax(top * 1.1 + 1e-9);
        chart.getStyler().setAnnotationLineColor(new Color(0x606060)).setAnnotationLineStroke(stroke(1.5f, DASHED))
                .setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12))
                .setAnnotationTextFontColor(new Color(0x404040));
        for (TimelineChartCommand.Mark mark : marks) {
            chart.addAnnotation(new AnnotationLine(mark.seconds(), true, false));
            chart.addAnnotation(new AnnotationText(mark.label(), mark.seconds(), top * 1.05, false));
        }
        return draw(title, conditions, chart);
    }

    /**
     * One figure per series across {@code scenarios}, in their order: each series' value of {@code kind} at
     * {@code size} (bandwidth, latency) or, for {@link Compare#LOAD}, its 99th percentile, on a log axis, one line per
     * series: how each transport holds up as loss or delay grows.
     */
    static byte[] acrossScenarios(List<Compare.Results> scenarios, String kind, int size, String title, String unit,
            String conditions) throws IOException {
        Map<String, List<double[]>> lines = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        double low = Double.MAX_VALUE;
        double high = 0;
        for (Compare.Results results : scenarios) {
            String name = results.scenario() == null ? "as it is" : results.scenario();
            names.add(names.contains(name) ? name + " (" + (names.size() + 1) + ")" : name); // labels all differ
            for (Compare.Point point : results.points()) {
                double value = kind.equals(Compare.LOAD) ? point.p99() == null ? 0 : point.p99() : point.value();
                if (point.kind().equals(kind) && point.bytes() == size && value > 0) {
                    lines.computeIfAbsent(point.series(), k -> new ArrayList<>()).add(new double[] {names.size() - 1,
                            value});
                    low = Math.min(low, value);
                    high = Math.max(high, value);
                }
            }
        }
        Axis measure = axis(unit, lines.isEmpty() ? 1 : low, lines.isEmpty() ? 2 : high);
        XYChart chart = chart("network", -0.5, names.size() - 0.5, at -> { // ticks where the scenarios are
            long index = Math.round(at);
            return Math.abs(at - index) > 1e-6 || index < 0 || index >= names.size() ? String.format(
                    java.util.Locale.ROOT, "%.2f", at) : names.get((int) index);
        }, measure);
        chart.getStyler().setXAxisTickMarkSpacingHint((int) (0.85 * WIDTH / Math.max(1, names.size())));
        lines.forEach((label, values) -> {
            Style style = style(Compare.Series.labelled(label));
            line(chart, label, values.stream().map(v -> v[0]).toList(), values.stream().map(v -> measure.at(v[1]))
                    .toList(), style, style.dash(), style.filled());
        });
        return draw(title, conditions, chart);
    }

    /** An XY chart over two base-2 logarithmic axes. */
    private static XYChart chart(Axis x, Axis y) {
        XYChart chart = chart(x.label(), x.at(x.from()), x.at(x.to()), x::tick, y);
        chart.getStyler().setXAxisTickMarkSpacingHint(x.spacing(WIDTH));
        return chart;
    }

    /**
     * An XY chart with an x axis from {@code from} to {@code to} (null: the data's) labelled by {@code ticks} (null:
     * the values; every label different, as XChart needs: {@link Axis#tick}), and {@code y} as its y axis (null:
     * linear, the data's).
     */
    private static XYChart chart(String xLabel, Double from, Double to, Function<Double, String> ticks, Axis y) {
        XYChart chart = new XYChart(WIDTH, HEIGHT);
        chart.setXAxisTitle(xLabel);
        Styler styler = chart.getStyler();
        styler.setChartTitleVisible(false).setChartBackgroundColor(Color.WHITE).setPlotBackgroundColor(Color.WHITE)
                .setPlotBorderVisible(false).setLegendPosition(Styler.LegendPosition.OutsideS)
                .setLegendLayout(Styler.LegendLayout.Horizontal).setLegendBorderColor(Color.WHITE)
                .setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12)).setAntiAlias(true);
        chart.getStyler().setPlotGridLinesColor(GRID).setAxisTickLabelsFont(TICKS).setXAxisMin(from).setXAxisMax(to)
                .setLegendSeriesLineLength(36);
        if (ticks != null) {
            chart.setCustomXAxisTickLabelsFormatter(ticks);
        }
        if (y != null) {
            chart.setYAxisTitle(y.label());
            chart.getStyler().setYAxisMin(y.at(y.from())).setYAxisMax(y.at(y.to()))
                    .setYAxisTickMarkSpacingHint(y.spacing(HEIGHT * 2 / 3));
            chart.setCustomYAxisTickLabelsFormatter(y::tick);
        }
        return chart;
    }

    /** A line of {@code style}'s colour and marker, dashed by {@code dash} (null: solid), its marker filled or not. */
    private static void line(XYChart chart, String label, List<Double> x, List<? extends Number> y, Style style,
            float[] dash, boolean filled) {
        if (x.isEmpty()) {
            return;
        }
        XYSeries series = chart.addSeries(label, x, y);
        series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        series.setLineColor(style.colour());
        series.setLineStyle(stroke(LINE, dash));
        series.setMarkerColor(style.colour());
        series.setMarker(new ShapeMarker(style.marker(), filled));
    }

    /** The band around {@code label}'s line: the polygon from its largest runs back along its smallest, translucent. */
    private static void band(XYChart chart, String label, List<Double> x, List<Double> y, Color colour) {
        XYSeries series = chart.addSeries(label + " (smallest to largest run)", x, y);
        series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.PolygonArea);
        series.setFillColor(new Color(colour.getRed(), colour.getGreen(), colour.getBlue(), BAND_ALPHA));
        series.setLineColor(new Color(0, 0, 0, 0));
        series.setMarker(new ShapeMarker(null, false));
        series.setShowInLegend(false);
    }

    private static BasicStroke stroke(float width, float[] dash) {
        return dash == null ? new BasicStroke(width)
                : new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, dash, 0f);
    }

    /** {@code chart} as a PNG of {@link #WIDTH} by {@link #HEIGHT}: white, the title, the conditions under it. */
    private static byte[] draw(String title, String conditions, XYChart chart) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            int y = 8;
            y = text(g, title, TITLE, Color.BLACK, y);
            y = text(g, conditions, CONDITIONS, new Color(0x404040), y + 2);
            AffineTransform plain = g.getTransform();
            g.translate(0, y + 4);
            chart.paint(g, WIDTH, HEIGHT - y - 4);
            g.setTransform(plain);
        } finally {
            g.dispose();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }

    /** {@code text} centred from {@code top} down, wrapped at words to the image's width; where the next line goes. */
    private static int text(Graphics2D g, String text, Font font, Color colour, int top) {
        g.setFont(font);
        g.setColor(colour);
        FontMetrics metrics = g.getFontMetrics();
        int y = top;
        StringBuilder line = new StringBuilder();
        for (String word : (text == null ? "" : text).split(" ")) {
            if (!line.isEmpty() && metrics.stringWidth(line + " " + word) > WIDTH - 40) {
                y = centre(g, metrics, line.toString(), y);
                line.setLength(0);
            }
            line.append(line.isEmpty() ? "" : " ").append(word);
        }
        return line.isEmpty() ? y : centre(g, metrics, line.toString(), y);
    }

    private static int centre(Graphics2D g, FontMetrics metrics, String line, int top) {
        g.drawString(line, (WIDTH - metrics.stringWidth(line)) / 2, top + metrics.getAscent());
        return top + metrics.getHeight();
    }

    /**
     * A base-2 logarithmic axis from a little below {@code low} to a little above {@code high}, a labelled tick at
     * every power of two, or of 4, 16, … when that would be more than {@value #MOST_TICKS} ticks.
     */
    static Axis axis(String label, double low, double high) {
        double from = low / 1.25;
        double to = high * 1.25;
        return new Axis(label, from, to, tickStep(from, to));
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

    /** An equilateral triangle of half-height {@code s}, pointing up or down. */
    private static Shape triangle(double s, boolean up) {
        double tip = up ? -s : s;
        Path2D.Double path = new Path2D.Double();
        path.moveTo(0, tip);
        path.lineTo(s, -tip);
        path.lineTo(-s, -tip);
        path.closePath();
        return path;
    }

    private static Shape diamond(double s) {
        Path2D.Double path = new Path2D.Double();
        path.moveTo(0, -s);
        path.lineTo(s, 0);
        path.lineTo(0, s);
        path.lineTo(-s, 0);
        path.closePath();
        return path;
    }

    /** A cross of arms {@code s} long and {@code t} thick: upright (+) or diagonal (x). */
    private static Shape cross(double s, double t, boolean diagonal) {
        java.awt.geom.Area area = new java.awt.geom.Area(new Rectangle2D.Double(-s, -t, 2 * s, 2 * t));
        area.add(new java.awt.geom.Area(new Rectangle2D.Double(-t, -s, 2 * t, 2 * s)));
        return diagonal ? AffineTransform.getRotateInstance(Math.PI / 4).createTransformedShape(area) : area;
    }

    /** A marker that draws a shape of ours, filled or as its outline (XChart's own are filled only). */
    private static final class ShapeMarker extends Marker {
        private final Shape shape;
        private final boolean filled;

        ShapeMarker(Shape shape, boolean filled) {
            this.shape = shape;
            this.filled = filled;
        }

        @Override
        public void paint(Graphics2D g, double x, double y, int markerSize) {
            if (shape == null) {
                return;
            }
            Shape placed = AffineTransform.getTranslateInstance(x, y).createTransformedShape(shape);
            if (filled) {
                g.fill(placed);
            } else {
                java.awt.Stroke before = g.getStroke();
                g.setStroke(new BasicStroke(1.6f));
                g.draw(placed);
                g.setStroke(before);
            }
        }
    }
}
