package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 35: {@code rddp compare} under a delay, in the VM (its kernel has netem and SCTP; this machine neither):
 * {@code faults/compare.sh} between two network namespaces, RDDP over the kernel's SCTP and over MPA next to their
 * sockets, every packet leaving either end held 5 ms by netem ({@code netns.sh delay 5ms}); the smoke of
 * {@code vm/scenarios.sh}, whose default is 1, 10 and 50 ms round trips. What must hold: every series measured under
 * the delay, and the delay is in what each measured: no half round trip under 5 ms, no load round trip under 10.
 */
@Execution(ExecutionMode.CONCURRENT)
class ScenariosVmTest {
    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void everyTransportIsComparedUnderADelayThatShowsInEveryFigure() throws Exception {
        Path out = Path.of(System.getProperty("user.dir"), "target", "vm", "scenarios");
        Files.createDirectories(out);
        List<String> command = new ArrayList<>(List.of("env", "RDDP=" + String.join(" ", Vm.rddp()),
                Vm.script("../faults/compare.sh").normalize().toString(), "--scenarios", "delay 5ms", "--out",
                out.toString(), "--", "--sctp-stack", "kernel", "--sizes", "4096", "--mib-per-point", "1",
                "--latency-iters", "50", "--load-rate", "100", "--load-seconds", "1"));
        Vm.Outcome outcome = Vm.run("scenarios", List.of("--load", "sctp,sch_netem", "--rw", out.toString()),
                command);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        assertThat(json.get("conditions").asText()).contains("SCTP kernel").contains("network: delay 5ms");
        List<String> measured = new ArrayList<>();
        for (JsonNode point : json.get("points")) {
            String kind = point.get("kind").asText();
            measured.add(point.get("series").asText() + " " + kind);
            assertThat(point.get("scenario").asText()).isEqualTo("delay 5ms");
            if (kind.equals("latency")) {
                assertThat(point.get("min").asDouble()).as("%s", point).isGreaterThanOrEqualTo(5_000);
            } else if (kind.endsWith("load")) { // Sends, and RDDP's Writes with their notifying Sends
                assertThat(point.get("percentiles").get(0).get("usec").asDouble()).as("%s", point)
                        .isGreaterThanOrEqualTo(10_000);
                assertThat(point.get("iterations").asLong()).isEqualTo(100);
            }
        }
        assertThat(measured).contains("TCP socket load", "RDDP over MPA load", "RDDP over SCTP load",
                "RDDP over MPA write-load", "RDDP over SCTP write-load",
                "SCTP socket bandwidth", "RDDP over SCTP bandwidth", "RDDP over SCTP latency", "RDDP over MPA latency");
        outcome.output().lines().filter(line -> !line.startsWith("compare:")).forEach(line -> System.out.println(
                "vm scenarios: " + line));
    }
}
