package org.rddp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rddp.cli.PingCommandTest.Run;

/** {@code rddp compare} on a small sweep: every transport and baseline, the table, the JSON and the charts. */
class CompareCommandTest {

    @Test
    void comparesEveryTransportWithItsBaselineAndWritesJsonAndCharts(@TempDir Path out) throws Exception {
        Run run = PingCommandTest.rddp("compare", "--sizes", "256,65536", "--mib-per-point", "2",
                "--latency-iters", "50", "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("TCP socket, RDDP over MPA, SCTP socket, RDDP over SCTP")
                .contains("RDMA Write bandwidth vs socket streaming").contains("Send ping-pong vs socket ping-pong");
        List<String[]> rows = run.out().lines().filter(line -> line.matches("\\s+\\d+ .*"))
                .map(line -> line.trim().split("\\s+")).toList();
        assertThat(rows).hasSize(4); // two sizes, two tables
        for (String[] row : rows) {
            assertThat(row).hasSize(7); // size, TCP, MPA, ratio, SCTP, RDDP over SCTP, ratio
            for (int i = 1; i < row.length; i++) {
                assertThat(Double.parseDouble(row[i])).as(String.join(" ", row)).isPositive();
            }
        }
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        assertThat(json.get("sizes").size()).isEqualTo(2);
        Set<String> seen = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("value").asDouble()).isPositive();
            assertThat(point.get("iterations").asLong()).isPositive();
            seen.add(point.get("series").asText() + "/" + point.get("kind").asText() + "/" + point.get("bytes"));
        }
        assertThat(seen).hasSize(16).contains("RDDP over SCTP/latency/65536", "TCP socket/bandwidth/256");
        for (String chart : List.of("bandwidth.png", "latency.png")) {
            BufferedImage image = ImageIO.read(out.resolve(chart).toFile());
            assertThat(image.getWidth()).isEqualTo(900);
            assertThat(image.getHeight()).isEqualTo(560);
        }
    }

    @Test
    void comparesOneTransportAndPrintsJson(@TempDir Path out) throws Exception {
        Run run = PingCommandTest.rddp("compare", "-t", "mpa", "--sizes", "1024", "--mib-per-point", "1",
                "--latency-iters", "20", "-o", out.toString(), "--json");
        assertThat(run.status()).as(run.err()).isZero();
        String printed = run.out().substring(run.out().indexOf('{'));
        JsonNode json = new ObjectMapper().readTree(printed);
        Set<String> series = new HashSet<>();
        json.get("points").forEach(point -> series.add(point.get("series").asText()));
        assertThat(series).containsExactlyInAnyOrder("TCP socket", "RDDP over MPA");
        assertThat(Files.readString(out.resolve("compare.json"))).isEqualTo(printed.strip());
    }

    @Test
    void anUnknownTransportIsRefused(@TempDir Path out) {
        Run run = PingCommandTest.rddp("compare", "-t", "udp", "-o", out.toString());
        assertThat(run.status()).isOne();
        assertThat(run.err()).contains("a transport is mpa or sctp, not udp");
    }
}
