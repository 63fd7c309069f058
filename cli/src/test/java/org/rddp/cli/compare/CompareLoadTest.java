package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.rddp.cli.perftest.PerfResult;

/** An offered load as {@code compare} asks for it, measures it and draws it. */
class CompareLoadTest {

    @Test
    void aLoadPointCrossesTheControlConnectionWithItsRate() {
        Compare.Task task = new Compare.Task(Compare.Series.RDDP_SCTP, Compare.LOAD, 1024, 5000, 2000);
        assertThat(task.encode()).isEqualTo("RDDP_SCTP load 1024 5000 2000");
        assertThat(Compare.Task.parse(task.encode())).isEqualTo(task);
        assertThat(Compare.Task.parse("TCP_SOCKET latency 64 100")).isEqualTo(new Compare.Task(
                Compare.Series.TCP_SOCKET, Compare.LATENCY, 64, 100));
    }

    @Test
    void aLoadNeedsARateOnlyALoadHasAndASeriesThatTakesOne() {
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_MPA load 1024 100")).hasMessageContaining("a load offers");
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_MPA bandwidth 1024 100 5")).hasMessageContaining(
                "only a load has a rate");
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_MPA load 1024 100 2000000")).hasMessageContaining(
                "1..1000000");
        assertThatThrownBy(() -> Compare.Task.parse("SCTP_SOCKET load 1024 100 10")).hasMessageContaining(
                "is not measured under a load");
        // RDMA Writes with their notifying Sends: RDDP's series only, with a rate
        assertThat(Compare.Task.parse("RDDP_MPA write-load 1024 100 10").writes()).isTrue();
        assertThat(Compare.Task.parse("RDDP_SCTP write-load 1024 100 10").load()).isTrue();
        assertThatThrownBy(() -> Compare.Task.parse("TCP_SOCKET write-load 1024 100 10")).hasMessageContaining(
                "is not measured under a write-load");
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_MPA write-load 1024 100")).hasMessageContaining(
                "a load offers");
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_MPA load 1024 100 x")).hasMessageContaining(
                "are numbers");
        assertThatThrownBy(() -> new Compare.Load(1024, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new Compare.Load(512, 2000, 0.25).iterations()).isEqualTo(500);
    }

    @Test
    void manyQueuePairsCrossTheControlConnectionWithinBounds() {
        Compare.Task task = new Compare.Task(Compare.Series.RDDP_MPA, Compare.QPS, 4096, 200, 0, 1000);
        assertThat(task.encode()).isEqualTo("RDDP_MPA qps 4096 200 1000");
        assertThat(Compare.Task.parse(task.encode())).isEqualTo(task);
        assertThat(task.scale()).isTrue();
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_SCTP qps 4096 200 1001")).hasMessageContaining(
                "many queue pairs are 1..1000");
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_SCTP qps 4096 20000 1000")).hasMessageContaining(
                "at most 10000000 messages in all");
        assertThatThrownBy(() -> Compare.Task.parse("RDDP_SCTP qps 1048576 100 100")).hasMessageContaining(
                "more than 64 MiB of messages");
        assertThatThrownBy(() -> Compare.Task.parse("TCP_SOCKET qps 4096 100 10")).hasMessageContaining(
                "has no queue pairs");
        assertThatThrownBy(() -> new Compare.Task(Compare.Series.RDDP_MPA, Compare.BANDWIDTH, 64, 100, 0, 2))
                .hasMessageContaining("only qps has more than one");
        Compare.Many many = new Compare.Many(List.of(1, 100, 1000), 4096, 200_000);
        assertThat(many.iterations(1)).isEqualTo(200_000);
        assertThat(many.iterations(1000)).isEqualTo(200); // a share each, at least 100
        assertThat(new Compare.Many(List.of(1000), 64, 10).iterations(1000)).isEqualTo(100);
        assertThatThrownBy(() -> new Compare.Many(List.of(0), 4096, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLatencyCarriesItsDistributionHalvingTheRestAtEachLevel() {
        long[] nanos = new long[1000];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = (i + 1) * 1_000L; // 1 .. 1000 usec
        }
        PerfResult.Latency latency = PerfResult.Latency.of(64, nanos, 1);
        List<PerfResult.Percentile> levels = latency.percentiles();
        assertThat(levels.getFirst()).isEqualTo(new PerfResult.Percentile(0, 1));
        assertThat(levels.get(1)).isEqualTo(new PerfResult.Percentile(50, 500));
        assertThat(levels.get(2)).isEqualTo(new PerfResult.Percentile(75, 750));
        assertThat(levels.getLast()).isEqualTo(new PerfResult.Percentile(100, 1000));
        // 1 - 2^-k while a sample is left above it: 0, 50, …, 99.8046875 %, then the slowest
        assertThat(levels).hasSize(11);
        assertThat(levels.get(9).percent()).isEqualTo(100 * (1 - 1.0 / 512));
        assertThat(latency.p99Usec()).isEqualTo(990);
        assertThat(latency.p999Usec()).isEqualTo(999);
    }

    @Test
    void thePercentileChartDrawsEachSeriesInItsColour() throws Exception {
        long[] nanos = new long[2000];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = 20_000 + i * i * 10L;
        }
        List<PerfResult.Percentile> distribution = PerfResult.Latency.of(1024, nanos, 1).percentiles();
        List<Compare.Point> points = List.of(
                new Compare.Point("TCP socket", Compare.LOAD, 1024, 2000, 30, 30, 30, "usec", List.of(30.0), null,
                        null, 100.0, 200.0, distribution, "loss 0.01"),
                new Compare.Point("RDDP over SCTP", Compare.LOAD, 1024, 2000, 40, 40, 40, "usec", List.of(40.0), null,
                        null, 100.0, 200.0, distribution.stream().map(at -> new PerfResult.Percentile(at.percent(),
                                2 * at.usec())).toList(), "loss 0.01"));
        Compare.Results results = new Compare.Results(Compare.IN_PROCESS, null, List.of(1024), 1, points,
                new Compare.Load(1024, 2000, 1), "loss 0.01");
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(Chart.percentiles(results, "t", "c")));
        assertThat(image.getWidth()).isEqualTo(Chart.WIDTH);
        assertThat(image.getHeight()).isEqualTo(Chart.HEIGHT);
        for (Compare.Series series : List.of(Compare.Series.TCP_SOCKET, Compare.Series.RDDP_SCTP)) {
            Color colour = Chart.style(series).colour();
            int drawn = 0;
            for (int x = 0; x < image.getWidth(); x++) {
                for (int y = 0; y < image.getHeight(); y++) {
                    drawn += image.getRGB(x, y) == colour.getRGB() ? 1 : 0;
                }
            }
            assertThat(drawn).as(series.label).isGreaterThan(200);
        }
    }
}
