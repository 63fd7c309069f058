package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
 * links ({@code vm/multihome.sh}); RDMA Writes, Reads and Sends ({@code rddp write-bw}, {@code read-bw},
 * {@code send-bw}, each with {@code --verify}) run 24 s from one to the other while the first link goes down for 6 s
 * and comes back. Over kernel SCTP both ends bind an address on each link ({@code --multihome}): each transfer goes on
 * over the second link, both ends verify every octet, no Terminate, no flushed work request, and the client hears the
 * path change ({@code PATH_MIGRATED}). Printed: the time from the link going down to that, and to the first completion
 * after the longest pause between completions ({@code --timeline}). Over MPA, for contrast: a TCP connection has one
 * path, so the transfer stalls for the outage and goes on once the link is back (also verified).
 */
@Execution(ExecutionMode.CONCURRENT)
class MultihomingVmTest {
    private static final List<String> SCTP_RUNS = List.of("sctp-write", "sctp-read", "sctp-send");
    private static final Pattern LINK_DOWN = Pattern.compile("MULTIHOME (\\S+) link-down (\\d+)\\.(\\d{9})");
    private static final Pattern PATH_CHANGE = Pattern.compile(
            "MULTIHOME (\\S+) client: rddp: (\\S+) path change on queue pair \\d+: (.*)");
    private static final Pattern PAUSE = Pattern.compile(
            "MULTIHOME (\\S+) client: timeline longest pause between completions: (\\d+) ms, ended (\\S+)");

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void transfersOverKernelSctpOutliveAFailedLinkAndOverMpaWaitForIt() throws Exception {
        String sctp = " -t sctp --sctp-stack kernel -s 65536";
        java.nio.file.Path charts = java.nio.file.Path.of(System.getProperty("user.dir"), "target", "vm", "failover");
        java.nio.file.Files.createDirectories(charts);
        java.nio.file.Path chart = charts.resolve("failover.png");
        java.nio.file.Files.deleteIfExists(chart);
        // with the default tiers: with C1 only (faster here) and another VM beside it, the client's association was
        // lost after the outage in 2 of ~15 SCTP runs (Association.Max.Retrans), never in ~27 with them; not understood
        List<String> command = List.of("env", "RDDP=" + String.join(" ", Vm.rddpTiered()), "DURATION=24", "OUTAGE=6",
                "CHART=" + chart, Vm.script("multihome.sh").toString(), "sctp-write:write-bw" + sctp,
                "sctp-read:read-bw" + sctp, "sctp-send:send-bw" + sctp, "mpa-write:write-bw -t mpa -s 65536");
        Vm.Outcome outcome = Vm.run("multihome", List.of("--load", "sctp,veth", "--smp", "2", "--rw",
                charts.toString()), command);
        String output = outcome.output();
        output.lines().filter(line -> line.startsWith("MULTIHOME") && !line.contains(": timeline 20"))
                .forEach(System.out::println);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        // issue 35: the timeline chart, every run from its link going down
        assertThat(output).as(outcome.tail()).contains("MULTIHOME chart: written: " + chart);
        assertThat(java.nio.file.Files.readAllBytes(chart)).startsWith(0x89, 'P', 'N', 'G');
        for (String run : List.of("sctp-write", "sctp-read", "sctp-send", "mpa-write")) {
            assertThat(output).as(run + ": both ends verified the data")
                    .containsPattern("MULTIHOME " + run + " ended \\S+ client=0 server=0");
            assertThat(output).as(run + ": nothing ended the connection").doesNotContainPattern(
                    "MULTIHOME " + run + " (client|server): rddp (write|read|send)-bw:");
            assertThat(output).as(run + ": the client's timeline").containsPattern(PAUSE.pattern().replace(
                    "(\\S+) client", run + " client"));
        }
        for (String run : SCTP_RUNS) {
            Instant down = linkDown(output, run);
            Instant moved = null;
            String how = null;
            Matcher change = PATH_CHANGE.matcher(output);
            while (change.find() && moved == null) {
                Instant at = Instant.parse(change.group(2));
                if (change.group(1).equals(run) && at.isAfter(down)) {
                    moved = at;
                    how = change.group(3);
                }
            }
            assertThat(moved).as(run + ": the client heard its path change after the link went down").isNotNull();
            System.out.printf("MULTIHOME %s failover: the client heard '%s' %d ms after the link went down%n", run,
                    how, Duration.between(down, moved).toMillis());
        }
        Matcher pause = PAUSE.matcher(output);
        while (pause.find()) {
            Instant down = linkDown(output, pause.group(1));
            Instant ended = Instant.parse(pause.group(3));
            System.out.printf("MULTIHOME %s: the longest pause between completions, %s ms, ended %d ms after the "
                    + "link went down%n", pause.group(1), pause.group(2), Duration.between(down, ended).toMillis());
        }
    }

    private static Instant linkDown(String output, String run) {
        Matcher link = LINK_DOWN.matcher(output);
        while (link.find()) {
            if (link.group(1).equals(run)) {
                return Instant.ofEpochSecond(Long.parseLong(link.group(2)), Long.parseLong(link.group(3)));
            }
        }
        throw new AssertionError(run + ": the first link did not go down");
    }
}
