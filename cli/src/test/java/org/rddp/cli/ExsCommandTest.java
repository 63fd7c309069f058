package org.rddp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

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
