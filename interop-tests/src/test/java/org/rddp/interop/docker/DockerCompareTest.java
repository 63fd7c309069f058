package org.rddp.interop.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code docker/compare.sh}: rddp compare between a responder and an initiator container (TCP/MPA, and SCTP on
 * usrsctp over UDP), from whatever state this machine is in: Docker installed and dockerd started if need be, the base
 * image made with debootstrap if missing. By default a smoke run at one size under 1 % loss (set in the initiator's
 * container: {@code docker/scenario.sh}), with an offered load; the default sweep of every size on the network as it
 * is with {@code -Drddp.docker.full=true}. Fails, never skips, when Docker cannot run here.
 */
@Isolated("it measures; nothing else runs beside it")
class DockerCompareTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final List<String> SERIES = List.of("TCP socket", "RDDP over MPA", "SCTP socket", "RDDP over SCTP");

    @Test
    @Timeout(value = 40, unit = TimeUnit.MINUTES)
    void comparesBetweenTwoContainersOverBothTransportsAndLeavesTheFirewallAsItWas() throws Exception {
        boolean full = Boolean.getBoolean("rddp.docker.full");
        List<Integer> sizes = full ? List.of(64, 256, 1024, 4096, 16384, 65536, 262144, 1048576) : List.of(4096);
        Path log = ROOT.resolve("interop-tests/target/docker");
        Path results = log.resolve("results");
        Files.createDirectories(log);
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("docker/compare.sh").toString(), "--out",
                results.toString()));
        if (Files.isDirectory(ROOT.resolve("cli/target/modules"))) {
            command.add("--built"); // the reactor packaged the cli before this module's tests
        }
        if (!full) {
            command.addAll(List.of("--scenarios", "loss 0.01", "--sizes", "4096", "--mib-per-point", "2",
                    "--latency-iters", "200", "--load-rate", "500", "--load-seconds", "1"));
        }
        String forwardBefore = forwardPolicy();
        Process process = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectOutput(log.resolve("compare.out").toFile()).redirectError(log.resolve("compare.err").toFile())
                .start();
        int status;
        try {
            status = process.waitFor();
        } finally {
            process.destroy(); // timed out: the script tears down what it started when terminated
        }
        String out = Files.readString(log.resolve("compare.out"), StandardCharsets.UTF_8);
        String err = Files.readString(log.resolve("compare.err"), StandardCharsets.UTF_8);
        String story = out + "\n--- stderr (interop-tests/target/docker/compare.err), last lines:\n" + tail(err);
        assertThat(status).as(story).isZero();

        assertThat(out).as(story).contains("rddp compare: TCP socket, RDDP over MPA, MPA hop, RFC floor, SCTP socket, "
                + "RDDP over SCTP (SCTP: usrsctp-udp); "
                + "initiator here, responder at 198.51.100.2:18516");
        List<String> headers = out.lines().filter(line -> line.trim().startsWith("#bytes")).toList();
        assertThat(headers).as(story).hasSize(3).allSatisfy(header -> assertThat(header).contains(SERIES));
        List<String[]> rows = out.lines().filter(line -> line.matches("\\s+\\d+ .*"))
                .map(line -> line.trim().split("\\s+")).toList();
        // bandwidth and message rate at every size, latency up to 64 KiB
        assertThat(rows).as(story).hasSize(2 * sizes.size() + (int) sizes.stream().filter(size -> size <= 65536)
                .count());
        for (String[] row : rows) {
            // bandwidth: size, TCP, MPA, ratio, SCTP, RDDP over SCTP, ratio; latency: the RFC floor and RDDP over
            // MPA's ratio to it too; message rate: size and each bandwidth series' rate, per core, Gbit/s per core
            assertThat(row.length).as(story).isIn(7, 9, 13);
            for (int i = 1; i < row.length; i++) {
                if (row.length == 13 && i % 3 != 1 && row[i].equals("-")) {
                    continue; // per core: a point too short for the process's CPU clock (ticks) has none
                }
                assertThat(Double.parseDouble(row[i])).as(String.join(" ", row)).isPositive();
            }
        }

        JsonNode json = new ObjectMapper().readTree(results.resolve("compare.json").toFile());
        assertThat(json.get("setup").asText()).startsWith("two processes: initiator 198.51.100.3, responder "
                + "198.51.100.2:18516");
        assertThat(json.get("sctpStack").asText()).isEqualTo("usrsctp-udp");
        Set<String> seen = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("value").asDouble()).isPositive();
            seen.add(point.get("series").asText() + "/" + point.get("kind").asText());
        }
        // four series two ways, and the RFC floor's latency; the smoke: a load over three of them, and RDDP's two
        // under a load of Writes too, under loss
        assertThat(seen).hasSize(full ? 9 : 14);
        if (!full) {
            assertThat(json.get("conditions").asText()).contains("network: loss 0.01");
            assertThat(seen).contains("TCP socket/load", "RDDP over MPA/load", "RDDP over SCTP/load",
                    "RDDP over MPA/write-load", "RDDP over SCTP/write-load");
            assertThat(err).as(story).containsPattern("scenario.sh: the last scenario dropped [1-9]\\d* packets");
        }
        for (String chart : full ? List.of("bandwidth.png", "latency.png") : List.of("bandwidth-loss-0.01.png",
                "latency-loss-0.01.png", "load-loss-0.01.png")) {
            byte[] png = Files.readAllBytes(results.resolve(chart));
            assertThat(Arrays.copyOf(png, 4)).as(chart).isEqualTo(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        }
        // the VM suites bridge network namespaces of their own: dockerd must not have left FORWARD dropping
        assertThat(forwardPolicy()).isEqualTo(forwardBefore);
    }

    /** iptables' FORWARD policy ({@code -P FORWARD ACCEPT} where iptables is not installed yet: the kernel's). */
    private static String forwardPolicy() throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder("iptables", "-S", "FORWARD").redirectErrorStream(true).start();
        } catch (IOException e) {
            return "-P FORWARD ACCEPT";
        }
        String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        return printed.lines().findFirst().orElse("");
    }

    private static String tail(String text) {
        String[] lines = text.split("\n");
        return String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - 60), lines.length));
    }
}
