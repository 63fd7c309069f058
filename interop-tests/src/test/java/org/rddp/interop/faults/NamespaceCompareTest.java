package org.rddp.interop.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;
import org.rddp.interop.PackagedRddp;

/**
 * {@code rddp compare} between two hosts under network scenarios ({@code interop-tests/faults/compare.sh}: network
 * namespaces, the responder in one and the initiator in the other, the initiator setting each scenario through
 * {@code netns.sh}): by default a smoke with no loss and with 5 %; with {@code -Drddp.scenarios.full=true} the matrix
 * of docs/results.md (loss 0, 0.1, 1 and 5 %, 1 KiB and 64 KiB, three runs each). What must hold: the loss was
 * applied (packets were dropped), every series measured under each scenario, every load point timed all its round
 * trips, and each output names its scenario.
 */
@Isolated("it measures, and uses the namespaces the fault suite uses")
class NamespaceCompareTest {
    private static final Path ROOT = PackagedRddp.ROOT;
    private static final Path SCRIPT = ROOT.resolve("interop-tests/faults/compare.sh");
    private static final Path OUT = ROOT.resolve("interop-tests/target/faults/compare");

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void comparesEveryTransportWithAndWithoutLossAndNamesTheScenarioOfEachPoint() throws Exception {
        Files.createDirectories(OUT);
        Path log = OUT.resolve("compare.log");
        boolean full = Boolean.getBoolean("rddp.scenarios.full");
        List<String> scenarios = full ? List.of("loss 0", "loss 0.001", "loss 0.01", "loss 0.05")
                : List.of("loss 0", "loss 0.05");
        int rate = full ? 1000 : 500;
        List<String> arguments = new ArrayList<>(List.of(SCRIPT.toString(), "--scenarios", String.join(";",
                scenarios), "--out", OUT.toString(), "--"));
        arguments.addAll(full ? List.of("--sizes", "1024,65536", "--latency-max", "4096", "--latency-iters", "200",
                "--load-rate", "1000", "--load-seconds", "3", "--repeat", "3")
                : List.of("--sizes", "4096", "--mib-per-point", "1", "--latency-iters", "50", "--load-rate", "500",
                        "--load-seconds", "1"));
        ProcessBuilder builder = new ProcessBuilder(arguments).redirectErrorStream(true).redirectOutput(log.toFile());
        List<String> java = new ArrayList<>(PackagedRddp.java());
        java.addAll(List.of("-m", "org.rddp.cli/org.rddp.cli.Main"));
        builder.environment().put("RDDP", String.join(" ", java));
        Process process = builder.start();
        assertThat(process.waitFor(full ? 55 : 9, TimeUnit.MINUTES)).as("compare.sh finished").isTrue();
        String said = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(said).isZero();
        assertThat(said).containsPattern("netns.sh: the last scenario dropped [1-9]\\d* packets");
        JsonNode json = new ObjectMapper().readTree(OUT.resolve("compare.json").toFile());
        assertThat(json.get("setup").asText()).startsWith("two processes: initiator 10.77.0.1");
        assertThat(json.get("scenarios").findValuesAsText("scenario")).containsExactlyElementsOf(scenarios);
        Map<String, List<String>> measured = new HashMap<>();
        for (JsonNode point : json.get("points")) {
            String kind = point.get("kind").asText();
            measured.computeIfAbsent(point.get("scenario").asText() + " " + kind, key -> new ArrayList<>())
                    .add(point.get("series").asText());
            assertThat(point.get("value").asDouble()).as("%s", point).isPositive();
            if (kind.equals("load")) {
                assertThat(point.get("iterations").asLong()).as("%s", point).isEqualTo(full ? 3 * rate : rate);
                assertThat(point.get("p99").asDouble()).as("%s", point).isGreaterThanOrEqualTo(point.get("value")
                        .asDouble());
            }
        }
        for (String scenario : scenarios) {
            assertThat(measured.get(scenario + " bandwidth")).containsOnly("TCP socket", "RDDP over MPA",
                    "SCTP socket", "RDDP over SCTP");
            assertThat(measured.get(scenario + " load")).containsOnly("TCP socket", "RDDP over MPA",
                    "RDDP over SCTP");
            String file = "load-" + scenario.replace(' ', '-') + ".png";
            assertThat(OUT.resolve(file)).as(file).isNotEmptyFile();
        }
        assertThat(Files.readString(OUT.resolve("report.html"))).contains("network: loss 0.05");
        said.lines().filter(line -> !line.startsWith("compare:")).forEach(line -> System.out.println("scenarios: "
                + line)); // the tables, for the record
    }
}
