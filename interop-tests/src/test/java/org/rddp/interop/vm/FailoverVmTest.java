package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 51: a transfer over RDDP over kernel SCTP, and one over the kernel's SCTP socket, each bound to both of two
 * links while the first is blackholed (every packet dropped, the link up: the failure nobody reports), in the VM,
 * whose kernel has SCTP: compare's failover scenario ({@code faults/compare.sh --paths 2 --multihome};
 * {@code vm/failover.sh} runs the whole matrix, MPTCP beside it). What must hold: the blackhole dropped packets, every
 * message of each transfer arrived checked, and each went on over the second link while the first was down. How soon
 * is not asserted: the guest is emulated.
 */
@Execution(ExecutionMode.CONCURRENT)
class FailoverVmTest {
    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void rddpOverMultihomedKernelSctpAndItsSocketGoOnOverTheSecondLinkWhileTheFirstIsBlackholed() throws Exception {
        Path out = Path.of(System.getProperty("user.dir"), "target", "vm", "failover-compare");
        Files.createDirectories(out);
        List<String> command = List.of("env", "RDDP=" + String.join(" ", Vm.rddp()),
                Vm.script("../faults/compare.sh").normalize().toString(), "--paths", "2", "--multihome",
                "--scenarios", "failover blackhole 6", "--out", out.toString(), "--", "-t", "sctp", "--sctp-stack",
                "kernel");
        Vm.Outcome outcome = Vm.run("failover", List.of("--load", "sctp,veth", "--smp", "2", "--rw",
                out.toString()), command);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        String output = outcome.output();
        assertThat(output).as("the blackhole happened").containsPattern(
                "netns.sh: the blackhole dropped [1-9]\\d* packets on the first path");
        JsonNode scenario = new ObjectMapper().readTree(out.resolve("failover.json").toFile()).get("failover").get(0);
        assertThat(scenario.get("conditions").asText()).contains("SCTP kernel");
        List<String> names = new java.util.ArrayList<>();
        for (JsonNode series : scenario.get("series")) {
            names.add(series.get("series").asText());
            assertThat(series.get("error").isNull()).as("%s", series).isTrue();
            assertThat(series.get("messages").asLong()).as("%s", series).isPositive();
            JsonNode failure = series.get("failures").get(0);
            assertThat(failure.get("toOtherPathMs").isNull()).as("went on over the second link while the first was "
                    + "down: %s", series).isFalse();
        }
        assertThat(names).containsExactly("SCTP socket", "RDDP over SCTP");
        output.lines().filter(line -> !line.startsWith("compare:") && !line.startsWith("rddp:"))
                .forEach(line -> System.out.println("vm failover: " + line));
    }
}
