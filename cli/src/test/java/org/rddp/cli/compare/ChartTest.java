package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.jfree.chart.axis.LogAxis;
import org.junit.jupiter.api.Test;

/** What makes compare's charts readable (issue 35): ticks to read values by, told-apart series, the runs' spread. */
class ChartTest {
    @Test
    void aNarrowRangeHasATickAtEveryPowerOfTwoAndAWideOneAtMostTwelve() {
        assertThat(Chart.tickStep(3 / 1.25, 70 * 1.25)).isEqualTo(1); // the latency chart that showed only "10"
        assertThat(Chart.tickStep(64 / 1.25, 1048576 * 1.25)).isEqualTo(2);
        assertThat(Chart.tickStep(0.001, 1e9)).isEqualTo(4);
        LogAxis axis = Chart.axis("usec", 3, 70);
        assertThat(axis.getTickUnit().getSize()).isEqualTo(1);
        assertThat(axis.getBase()).isEqualTo(2);
        assertThat(axis.getRange().getLowerBound()).isLessThan(3);
        assertThat(axis.getRange().getUpperBound()).isGreaterThan(70);
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
        LogAxis latency = Chart.sizeAxis(results, Compare.LATENCY);
        assertThat(latency.getRange().getLowerBound()).isLessThan(64);
        assertThat(latency.getRange().getUpperBound()).isGreaterThan(65536).isLessThan(131072);
        assertThat(Chart.sizeAxis(results, Compare.BANDWIDTH).getRange().getUpperBound()).isGreaterThan(1 << 20);
        // nothing measured of a kind: the sweep's sizes
        assertThat(Chart.sizeAxis(results, "none").getRange().getUpperBound()).isGreaterThan(1 << 20);
    }
}
