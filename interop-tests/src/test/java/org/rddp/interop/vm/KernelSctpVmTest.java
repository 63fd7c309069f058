package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The SCTP adaptation on a real Linux kernel's SCTP, in the project's VM (this machine's kernel has none). Fails,
 * never skips, when the VM cannot start. Its VMs run side by side with the other VM suites' (see the module's pom).
 */
@Execution(ExecutionMode.CONCURRENT)
class KernelSctpVmTest {
    /** The suites that run in the guest (sctp-adaptation's tests, package-private there). */
    private static final String SUITES = "org.rddp.transport.sctp.";

    /**
     * The scenario suite over the kernel's SCTP, on IPv4's loopback and on IPv6's; then, in the same boot, issue 32's
     * hostile peer and loss (a raw initiator floods a server with chunks far ahead of their turn on 64 streams: its
     * memory stays within the association's bound, and new Initiates are answered; small Writes cross a loopback that
     * drops 2 % of its packets without their session being ended) and the session-control checks
     * ({@code rddp interop}, this cases among them) against this stack both ways.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void theScenarioSuiteAHostilePeerLossAndTheSessionChecksOverTheKernelsSctp() throws Exception {
        String[] suites = {SUITES + "KernelSctpGuestSuite", SUITES + "KernelSctpIpv6GuestSuite",
            SUITES + "KernelSctpHostileGuestSuite", "org.rddp.check.KernelSctpChecksGuestSuite"};
        Vm.Outcome outcome = Vm.run("kernel-sctp", List.of("--load", "sctp,sch_netem"), Vm.junit(List.of(), suites));
        outcome.output().lines().filter(line -> line.startsWith("HOSTILE") || line.startsWith("LOSS"))
                .forEach(System.out::println);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        Vm.assertAllPassed(outcome, suites);
    }

    /**
     * On a host with kernel SCTP, {@code rddp compare} runs the JDK's own {@code SctpChannel} (what a Java program
     * would use instead of RDDP) and Netty's SCTP transport over it (what a Netty user gets) next to the project's FFM
     * socket and RDDP over the same kernel SCTP, and gives RDDP's ratio to the JDK's; the figures are printed. No stack
     * is named: the default takes the kernel's there, and says so. The guest is emulated: the test asserts that every
     * point was measured, not how fast.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void compareRunsTheJdksSctpChannelAsTheKernelBaseline() throws Exception {
        List<String> command = new ArrayList<>(Vm.rddp());
        command.addAll(List.of("compare", "-t", "sctp", "--sizes", "1024,65536", // no stack named: the kernel's
                "--mib-per-point", "2", "--latency-iters", "100", "-o", "/tmp/compare", "--json"));
        Vm.Outcome outcome = Vm.run("compare-jdk-sctp", List.of("--load", "sctp"), command);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        String output = outcome.output();
        int start = output.indexOf("\n{");
        int end = output.lastIndexOf("\n}");
        assertThat(start).as(outcome.tail()).isPositive();
        JsonNode json = new ObjectMapper().readTree(output.substring(start, end + 2));
        // issue 52: where the kernel has SCTP, auto takes it, and says so
        assertThat(json.get("sctpStack").asText()).isEqualToIgnoringCase("kernel");
        assertThat(output).contains("rddp: using the kernel's SCTP");
        Set<String> measured = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("value").asDouble()).as("%s", point).isPositive();
            measured.add(point.get("series").asText() + " " + point.get("kind").asText() + " "
                    + point.get("bytes").asInt());
            System.out.printf("kernel SCTP compare: %s %s %d: %.2f %s%n", point.get("series").asText(),
                    point.get("kind").asText(), point.get("bytes").asInt(), point.get("value").asDouble(),
                    point.get("unit").asText());
        }
        for (String series : List.of("SctpChannel (JDK)", "Netty SCTP (NIO)", "SCTP socket", "RDDP over SCTP")) {
            for (String kind : List.of("bandwidth", "latency")) {
                assertThat(measured).contains(series + " " + kind + " 1024", series + " " + kind + " 65536");
            }
        }
    }

    /**
     * Two independent SCTP stacks agreeing on RFC 5043 on the wire: the kernel's as initiator and usrsctp (over raw
     * IP, on another host) as responder, or the other way round, each way in a VM of its own so that the two run side
     * by side; plain and enhanced session control are both in the suite. The responder's SCTP socket lives in another
     * process, so every message crosses a proxy as well: the three 16 MiB transfers take ~5 of the ~7 minutes each
     * way, so by default the suite's large size is 1 MiB, and 16 MiB with {@code -Drddp.vm.full=true}.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"KernelToUsrsctpGuestSuite, rddp-a", "UsrsctpToKernelGuestSuite, rddp-b"})
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void kernelSctpAndUsrsctpInterworkAsInitiatorAndResponder(String suite, String host) throws Exception {
        boolean full = Boolean.getBoolean("rddp.vm.full");
        List<String> command = new ArrayList<>(List.of(Vm.script("two-hosts.sh").toString(), "ip", "netns", "exec",
                host));
        command.addAll(Vm.junit(full ? List.of() : List.of("rddp.test.large-octets=" + (1 << 20)), SUITES + suite));
        Vm.Outcome outcome = Vm.run("kernel-usrsctp-" + host, List.of("--load", "sctp"), command);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        Vm.assertAllPassed(outcome, SUITES + suite);
    }
}
