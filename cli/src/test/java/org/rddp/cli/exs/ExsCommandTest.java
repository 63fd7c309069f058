package org.rddp.cli.exs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rddp.cli.Main;
import org.rddp.cli.perftest.PerfReport;

/** {@code rddp exs-bw} and {@code exs-lat} run every series over both transports (short points: not a benchmark). */
class ExsCommandTest {

    @Test
    void latencyOfEverySeriesAsJson() throws Exception {
        JsonNode points = run("exs-lat", "--sizes", "1,300", "--iterations", "50", "--json");
        assertThat(series(points)).containsExactly(
                "EXS normal over mpa", "EXS immediate over mpa", "EXS persistent over mpa",
                "EXS normal over sctp", "EXS immediate over sctp", "EXS persistent over sctp", "TCP",
                "EXS normal over mpa", "EXS immediate over mpa", "EXS persistent over mpa",
                "EXS normal over sctp", "EXS immediate over sctp", "EXS persistent over sctp", "TCP");
        for (JsonNode point : points) {
            assertThat(point.get("usec").asDouble()).as("%s", point).isPositive();
        }
    }

    @Test
    void bandwidthOfEverySeriesWithTheReadNextToIt() throws Exception {
        JsonNode points = run("exs-bw", "-t", "mpa", "--sizes", "65536", "--seconds", "0.05", "--json");
        assertThat(series(points)).containsExactly("RDMA Read over mpa", "EXS normal over mpa",
                "EXS immediate over mpa", "EXS persistent over mpa", "TCP");
        for (JsonNode point : points) {
            assertThat(point.get("mbps").asDouble()).as("%s", point).isPositive();
            assertThat(point.get("cpuSecondsPerGb").asDouble()).as("%s", point).isPositive();
            // each side is one thread that does all its work (manual progress), so its CPU time is the side's
            assertThat(point.get("senderCpuSecondsPerGb").asDouble()).as("%s", point).isPositive();
            assertThat(point.get("receiverCpuSecondsPerGb").asDouble()).as("%s", point).isPositive();
        }
    }

    @Test
    void theTableSaysHowANormalSendComparesWithTheRead() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"exs-bw", "-t", "sctp", "--sizes", "4096", "--seconds", "0.05"},
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(status).isZero();
        String table = out.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("of the Read").contains("EXS normal over sctp").contains("RDMA Read over sctp");
    }

    @Test
    void repeatedRunsShowTheMedianOfTheRatiosTakenWithinEachRun() throws Exception {
        ExsBench.Latency normal = new ExsBench.Latency("EXS normal over mpa", 1, 10);
        List<List<ExsBench.Latency>> runs = List.of(
                List.of(normal, new ExsBench.Latency("EXS immediate over mpa", 1, 5)),
                List.of(new ExsBench.Latency("EXS normal over mpa", 1, 20), new ExsBench.Latency("x", 1, 6)),
                List.of(new ExsBench.Latency("EXS normal over mpa", 1, 30), new ExsBench.Latency("x", 1, 12)));
        // within each run 0.5, 0.3, 0.4: median 0.4; the medians' ratio would say 6 / 20 = 0.3
        assertThat(ExsCommand.ratio(runs, 1, 0, ExsBench.Latency::usec)).isCloseTo(0.4, within(1e-9));
        assertThat(ExsCommand.median(runs, 0, ExsBench.Latency::usec)).isEqualTo(20);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"exs-lat", "-t", "mpa", "--sizes", "1", "--iterations", "50",
            "--repeat", "2"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(status).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("median of 2 runs")
                .contains("EXS persistent over mpa");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(Main.run(new String[] {"exs-lat", "--repeat", "0"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8))).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--repeat takes 1 or more, not 0");
    }

    private static JsonNode run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).as("exit status; stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
        return PerfReport.JSON.readTree(out.toString(StandardCharsets.UTF_8));
    }

    private static List<String> series(JsonNode points) {
        List<String> names = new ArrayList<>();
        points.forEach(point -> names.add(point.get("series").asText()));
        return names;
    }
}
