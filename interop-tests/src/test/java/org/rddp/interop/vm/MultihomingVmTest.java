package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 34: an association that outlives a failed path. In the VM, two hosts (network namespaces) joined by two
 * links ({@code vm/multihome.sh}); an {@code rddp write-bw --verify} run of 20 s from one to the other while the first
 * link goes down for 6 s and comes back. Over kernel SCTP both ends bind an address on each link
 * ({@code --multihome}): the transfer goes on over the second link, both ends verify every octet, no Terminate, no
 * flushed work request, and the client hears the path change ({@code PATH_MIGRATED}); the time from the link going
 * down to that is printed. Over MPA, for contrast: a TCP connection has one path, so the transfer stalls for the
 * outage and goes on once the link is back (also verified).
 */
@Execution(ExecutionMode.CONCURRENT)
class MultihomingVmTest {
    private static final Pattern LINK_DOWN = Pattern.compile("MULTIHOME (\\S+) link-down (\\d+)\\.(\\d{9})");
    private static final Pattern PATH_CHANGE = Pattern.compile(
            "MULTIHOME (\\S+) client: rddp: (\\S+) path change on queue pair \\d+: (.*)");

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void aTransferOverKernelSctpOutlivesAFailedLinkAndOverMpaWaitsForIt() throws Exception {
        List<String> rddp = Vm.rddp();
        List<String> command = List.of("env", "RDDP=" + String.join(" ", rddp), "DURATION=20", "OUTAGE=6",
                Vm.script("multihome.sh").toString(), "sctp:-t sctp --sctp-stack kernel -s 65536",
                "mpa:-t mpa -s 65536");
        Vm.Outcome outcome = Vm.run("multihome", List.of("--load", "sctp,veth", "--smp", "2"), command);
        outcome.output().lines().filter(line -> line.startsWith("MULTIHOME")).forEach(System.out::println);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        String output = outcome.output();
        for (String transport : List.of("sctp", "mpa")) {
            assertThat(output).as(transport + ": both ends verified the data")
                    .containsPattern("MULTIHOME " + transport + " ended \\S+ client=0 server=0");
            assertThat(output).as(transport + ": nothing ended the connection").doesNotContain(
                    "MULTIHOME " + transport + " client: rddp write-bw:", "MULTIHOME " + transport
                            + " server: rddp write-bw:");
        }
        Instant down = null;
        Matcher link = LINK_DOWN.matcher(output);
        while (link.find()) {
            if (link.group(1).equals("sctp")) {
                down = Instant.ofEpochSecond(Long.parseLong(link.group(2)), Long.parseLong(link.group(3)));
            }
        }
        assertThat(down).as("the first link went down during the SCTP run").isNotNull();
        Instant moved = null;
        String how = null;
        Matcher change = PATH_CHANGE.matcher(output);
        while (change.find() && moved == null) {
            Instant at = Instant.parse(change.group(2));
            if (change.group(1).equals("sctp") && at.isAfter(down)) {
                moved = at;
                how = change.group(3);
            }
        }
        assertThat(moved).as("the SCTP client heard its path change after the link went down").isNotNull();
        System.out.printf("MULTIHOME failover: the client heard '%s' %d ms after the link went down%n", how,
                java.time.Duration.between(down, moved).toMillis());
    }
}
