package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rddp.cli.InProcess;
import org.rddp.cli.InProcess.Run;

/** {@code rddp timeline-chart}: runs' {@code --timeline} seconds on one chart, each from its own zero. */
class TimelineChartCommandTest {
    private static final String SCTP = """
            timeline 2026-11-28T10:00:01.000Z 100 messages 6.25 MB/sec
            timeline 2026-11-28T10:00:02.000Z 0 messages 0.00 MB/sec
            timeline 2026-11-28T10:00:03.000Z 120 messages 7.50 MB/sec
            timeline 2026-11-28T10:00:03.400Z 40 messages 6.25 MB/sec (the last 0.40 s)
            timeline longest pause between completions: 900 ms, ended 2026-11-28T10:00:02.500Z
            """;

    @Test
    void readsTheSecondsOfARunButNotItsLastPartSecond() {
        TimelineChartCommand.Run run = TimelineChartCommand.parse("RDDP over SCTP", "noise\n" + SCTP);
        assertThat(run.ends()).containsExactly(Instant.parse("2026-11-28T10:00:01Z"),
                Instant.parse("2026-11-28T10:00:02Z"), Instant.parse("2026-11-28T10:00:03Z"));
        assertThat(run.mbps()).containsExactly(6.25, 0.0, 7.5);
        assertThat(TimelineChartCommand.instant("1764324000.250000000")).isEqualTo(
                Instant.ofEpochSecond(1764324000L, 250_000_000));
    }

    @Test
    void drawsEveryRunFromItsZeroWithTheEventsMarked(@TempDir Path dir) throws Exception {
        Path sctp = Files.writeString(dir.resolve("sctp.client"), SCTP);
        Path mpa = Files.writeString(dir.resolve("mpa.client"), SCTP.replace("10:00:0", "10:05:0")
                .replace("6.25 MB", "3.00 MB").replace("7.50 MB", "2.00 MB"));
        Path out = dir.resolve("failover.png");
        Run run = InProcess.rddp("timeline-chart", "-o", out.toString(), "--zero", "the link going down", "--mark",
                "link down=0", "--mark", "link up=6", "RDDP over SCTP=" + sctp + "@2026-11-28T10:00:01.500Z",
                "RDDP over MPA=" + mpa + "@2026-11-28T10:05:01.500Z");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("written: " + out);
        BufferedImage image = ImageIO.read(out.toFile());
        assertThat(image.getWidth()).isEqualTo(Chart.WIDTH);
        for (Compare.Series series : java.util.List.of(Compare.Series.RDDP_SCTP, Compare.Series.RDDP_MPA)) {
            int colour = Chart.style(series).colour().getRGB();
            int drawn = 0;
            for (int x = 0; x < image.getWidth(); x++) {
                for (int y = 0; y < image.getHeight(); y++) {
                    drawn += image.getRGB(x, y) == colour ? 1 : 0;
                }
            }
            assertThat(drawn).as(series.label).isPositive();
        }
        Run empty = InProcess.rddp("timeline-chart", "-o", out.toString(), "x=" + dir.resolve("nothing.txt"));
        assertThat(empty.status()).isNotZero();
        Files.writeString(dir.resolve("nothing.txt"), "no timeline here\n");
        empty = InProcess.rddp("timeline-chart", "-o", out.toString(), "x=" + dir.resolve("nothing.txt"));
        assertThat(empty.err()).contains("x: no 'timeline' lines");
    }
}
