package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** What makes compare's charts readable (issue 35): ticks to read values by, told-apart series, the runs' spread. */
class ChartTest {
    @Test
    void aNarrowRangeHasATickAtEveryPowerOfTwoAndAWideOneAtMostTwelve() {
        assertThat(Chart.tickStep(3 / 1.25, 70 * 1.25)).isEqualTo(1); // the latency chart that showed only "10"
        assertThat(Chart.tickStep(64 / 1.25, 1048576 * 1.25)).isEqualTo(2);
        assertThat(Chart.tickStep(0.001, 1e9)).isEqualTo(4);
        Chart.Axis axis = Chart.axis("usec", 3, 70);
        assertThat(axis.step()).isEqualTo(1);
        assertThat(axis.from()).isLessThan(3);
        assertThat(axis.to()).isGreaterThan(70);
        // drawn over log2 of the values: a tick is labelled with the value it stands for, a power of two at a whole
        // number; the wider axis asks for ticks twice as far apart
        assertThat(axis.at(64)).isEqualTo(6);
        assertThat(axis.tick(6)).isEqualTo("64");
        assertThat(axis.tick(6.5)).isEqualTo("90.5");
        assertThat(Chart.axis("octets", 64, 1 << 20).tick(20)).isEqualTo("1,048,576");
        assertThat(Chart.axis("octets", 64, 1 << 20).spacing(900)).isGreaterThan(axis.spacing(900) / 2);
        assertThat(Chart.percentileTick(1)).isEqualTo("90%");
        assertThat(Chart.percentileTick(3)).isEqualTo("99.9%");
        assertThat(Chart.percentileTick(0.5)).isEqualTo("68.4%");
        assertThat(axis.tick(-20)).isEqualTo("2^-20");
        assertThat(axis.tick(60)).isEqualTo("2^60");
    }

    @Test
    void everySeriesHasItsOwnColourAndMarkerNoneYellowAndATwinItsSeriesColourHollow() {
        Set<Color> colours = new HashSet<>();
        for (Compare.Series series : Compare.Series.values()) {
            Chart.Style style = Chart.style(series);
            if (series.ipv6() || series.mptcp()) { // IPv6's dash-dot, MPTCP's long dashes
                assertThat(style.colour()).isEqualTo(Chart.style(series.measured()).colour());
                assertThat(style.filled()).isFalse();
                assertThat(style.dash()).isNotNull().isNotEqualTo(Chart.style(series.measured()).dash());
                continue;
            }
            assertThat(colours.add(style.colour())).as("%s's colour is another series'", series).isTrue();
            float[] hsb = Color.RGBtoHSB(style.colour().getRed(), style.colour().getGreen(), style.colour().getBlue(),
                    null);
            boolean yellow = hsb[0] > 0.12f && hsb[0] < 0.2f && hsb[1] > 0.5f && hsb[2] > 0.8f;
            assertThat(yellow).as("%s is yellow on white", series).isFalse();
            assertThat(style.dash() == null).as("%s: sockets and the floor dashed, RDDP and EXS solid", series)
                    .isEqualTo(series.baseline != null);
        }
    }

    @Test
    void theSpreadOfTheRunsIsDrawnAsABandAroundTheMedian() throws Exception {
        List<Compare.Point> points = new ArrayList<>();
        for (int size : List.of(64, 1024, 65536)) {
            points.add(new Compare.Point("RDDP over MPA", Compare.LATENCY, size, 100, 10, 5, 20, "usec",
                    List.of(5.0, 10.0, 20.0), null, null));
        }
        Compare.Results results = new Compare.Results(Compare.IN_PROCESS, null, List.of(64, 1024, 65536), 3, points);
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(Chart.png(results, Compare.LATENCY, "t", "usec",
                Compare.conditions(results))));
        Color line = Chart.style(Compare.Series.RDDP_MPA).colour();
        int band = 0;
        for (int x = 0; x < image.getWidth(); x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                Color pixel = new Color(image.getRGB(x, y));
                // the band: the line's colour at low alpha over white, lighter than the line, bluish
                if (!pixel.equals(line) && pixel.getBlue() > 200 && pixel.getRed() < 235 && pixel.getRed() > 150
                        && pixel.getBlue() - pixel.getRed() > 15) {
                    band++;
                }
            }
        }
        assertThat(band).as("pixels of the min-max band").isGreaterThan(2000);
    }

    @Test
    void eachChartsSizeAxisEndsAtTheLargestSizeItMeasured() {
        List<Compare.Point> points = new ArrayList<>();
        for (int size : List.of(64, 65536, 1 << 20)) {
            points.add(new Compare.Point("TCP socket", Compare.BANDWIDTH, size, 100, 900, 800, 1000, "MB/sec",
                    List.of(900.0), null, null));
            if (size <= 65536) { // --latency-max 65536
                points.add(new Compare.Point("TCP socket", Compare.LATENCY, size, 100, 5, 4, 6, "usec",
                        List.of(5.0), null, null));
            }
        }
        Compare.Results results = new Compare.Results(Compare.IN_PROCESS, null, List.of(64, 65536, 1 << 20), 1,
                points);
        Chart.Axis latency = Chart.sizeAxis(results, Compare.LATENCY);
        assertThat(latency.from()).isLessThan(64);
        assertThat(latency.to()).isGreaterThan(65536).isLessThan(131072);
        assertThat(Chart.sizeAxis(results, Compare.BANDWIDTH).to()).isGreaterThan(1 << 20);
        // nothing measured of a kind: the sweep's sizes
        assertThat(Chart.sizeAxis(results, "none").to()).isGreaterThan(1 << 20);
    }

    /**
     * XChart spreads an axis' ticks until their labels all differ: every label is the value it stands for, so that
     * awkward figures (the same scenario twice, a tail of 99.99999 %, values from a nanosecond to a petabyte) still
     * draw, and in a moment.
     */
    @Test
    void awkwardFiguresStillDraw() {
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> {
            List<Compare.Point> points = new ArrayList<>();
            points.add(new Compare.Point("TCP socket", Compare.LATENCY, 64, 100, 1e-6, 1e-6, 1e-6, "usec",
                    List.of(1e-6), null, null));
            points.add(new Compare.Point("TCP socket", Compare.LATENCY, 1 << 30, 100, 1e15, 1e15, 1e15, "usec",
                    List.of(1e15), null, null));
            Compare.Results wide = new Compare.Results(Compare.IN_PROCESS, null, List.of(64, 1 << 30), 1, points);
            assertThat(Chart.png(wide, Compare.LATENCY, "t", "usec", "c")).isNotEmpty();
            Compare.Results same = new Compare.Results(Compare.IN_PROCESS, null, List.of(64), 1, List.of(
                    new Compare.Point("TCP socket", Compare.BANDWIDTH, 64, 100, 5, 5, 5, "MB/sec", List.of(5.0), null,
                            null)), null, "loss 0");
            assertThat(Chart.acrossScenarios(List.of(same, same, same), Compare.BANDWIDTH, 64, "t", "MB/sec", "c"))
                    .isNotEmpty();
        });
    }
}
