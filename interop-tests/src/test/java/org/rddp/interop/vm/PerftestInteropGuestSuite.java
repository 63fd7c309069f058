package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rddp.interop.vm.SiwInteropGuestSuite.Outcome;

/**
 * {@code rddp write-bw} and the rest against rdma-core's perftest ({@code ib_write_bw -R} and the rest) on Linux
 * soft-iWARP, in the VM: both speak perftest's rdma_cm protocol (a control connection of ping-pong Sends, then
 * the data connection; see the cli's {@code Perftest}), so each is the other's server and client. Our side runs in
 * this process, perftest in its own. What is checked: both sides finish, the message counts agree, and where
 * perftest's server prints the client's numbers (Write and Read bandwidth) they are ours. perftest fills its
 * buffers with random octets, so data is checked end to end by the rping suite, not here. Not a host test: run by
 * {@link GuestMain}.
 */
class PerftestInteropGuestSuite {
    private static final AtomicInteger PORTS = new AtomicInteger(18515);
    private static final long TOOL_SECONDS = 240;
    private static final String ITERATIONS = "100";
    private static final int ATTEMPTS = 3;
    private static final String NO_CLOCK = "Can't produce a report";

    @BeforeEach
    void siwDefaults() throws Exception {
        SiwInteropGuestSuite.siw(SiwInteropGuestSuite.SIW_DEFAULTS);
    }

    // ---- bandwidth

    @Test
    void ourWriteBwClientAgainstIbWriteBw() throws Exception {
        Outcome outcome = ourClient("write_bw", Map.of(), List.of());
        String row = assertRow(outcome.out(), outcome, "65536", ITERATIONS);
        assertThat(outcome.rping()).as(outcome.all()).contains(row); // the server prints the client's numbers
    }

    @Test
    void ibWriteBwClientAgainstOurServer() throws Exception {
        Outcome outcome = ourServer("write_bw", Map.of(), List.of(), List.of());
        String row = assertRow(outcome.rping(), outcome, "65536", ITERATIONS);
        assertThat(outcome.out()).as(outcome.all()).contains(row);
    }

    @Test
    void ourWriteBwClientWithoutCrcInThePeerToPeerModelWithAReadRtr() throws Exception {
        Outcome outcome = ourClient("write_bw", Map.of(), List.of("--no-crc", "--p2p", "read"));
        assertRow(outcome.out(), outcome, "65536", ITERATIONS);
    }

    @Test
    void ourWriteBwClientOverMpaRevision1() throws Exception {
        Outcome outcome = ourClient("write_bw", Map.of("mpa_version", "1"), List.of("--mpa-rev", "1"));
        assertRow(outcome.out(), outcome, "65536", ITERATIONS);
    }

    @Test
    void ibWriteBwClientOverMpaRevision1() throws Exception {
        Outcome outcome = ourServer("write_bw", Map.of("mpa_version", "1"), List.of(), List.of());
        assertRow(outcome.rping(), outcome, "65536", ITERATIONS);
    }

    @Test
    void ibWriteBwClientInThePeerToPeerModelRequiringCrc() throws Exception {
        Outcome outcome = ourServer("write_bw", Map.of("peer_to_peer", "Y", "mpa_crc_required", "Y"), List.of(),
                List.of());
        assertRow(outcome.rping(), outcome, "65536", ITERATIONS);
    }

    @Test
    void ourReadBwClientAgainstIbReadBw() throws Exception {
        Outcome outcome = ourClient("read_bw", Map.of(), List.of());
        String row = assertRow(outcome.out(), outcome, "65536", ITERATIONS);
        assertThat(outcome.rping()).as(outcome.all()).contains(row);
    }

    @Test
    void ibReadBwClientAgainstOurServer() throws Exception {
        Outcome outcome = ourServer("read_bw", Map.of(), List.of(), List.of());
        String row = assertRow(outcome.rping(), outcome, "65536", ITERATIONS);
        assertThat(outcome.out()).as(outcome.all()).contains(row);
    }

    @Test
    void ourSendBwClientAgainstIbSendBw() throws Exception {
        Outcome outcome = ourClient("send_bw", Map.of(), List.of());
        assertRow(outcome.out(), outcome, "65536", ITERATIONS);
        assertRow(outcome.rping(), outcome, "65536", ITERATIONS); // the server counts what it received
    }

    @Test
    void ibSendBwClientAgainstOurServer() throws Exception {
        Outcome outcome = ourServer("send_bw", Map.of(), List.of(), List.of());
        assertRow(outcome.rping(), outcome, "65536", ITERATIONS);
        assertRow(outcome.out(), outcome, "65536", ITERATIONS);
    }

    // ---- latency

    /** perftest's server writes first: over MPA our client asks for the peer-to-peer model for that. */
    @Test
    void ourWriteLatClientAgainstIbWriteLat() throws Exception {
        Outcome outcome = ourClient("write_lat", Map.of(), List.of());
        assertRow(outcome.out(), outcome, "2", ITERATIONS);
        assertThat(outcome.out()).contains("peer-to-peer with WRITE RTR");
    }

    /** Our server writes first, which MPA allows a responder only after an RTR: siw's client sends one in p2p. */
    @Test
    void ibWriteLatClientInThePeerToPeerModelAgainstOurServer() throws Exception {
        Outcome outcome = ourServer("write_lat", Map.of("peer_to_peer", "Y"), List.of(), List.of());
        assertRow(outcome.out(), outcome, "2", ITERATIONS);
        assertThat(outcome.rping()).as(outcome.all()).contains(" 2       " + ITERATIONS);
    }

    @Test
    void ourReadLatClientAgainstIbReadLat() throws Exception {
        Outcome outcome = ourClient("read_lat", Map.of(), List.of());
        assertRow(outcome.out(), outcome, "2", ITERATIONS);
    }

    @Test
    void ibReadLatClientAgainstOurServer() throws Exception {
        Outcome outcome = ourServer("read_lat", Map.of(), List.of(), List.of());
        assertThat(outcome.rping()).as(outcome.all()).contains(" 2       " + ITERATIONS);
    }

    @Test
    void ourSendLatClientAgainstIbSendLat() throws Exception {
        Outcome outcome = ourClient("send_lat", Map.of(), List.of());
        assertRow(outcome.out(), outcome, "2", ITERATIONS);
    }

    @Test
    void ibSendLatClientAgainstOurServer() throws Exception {
        Outcome outcome = ourServer("send_lat", Map.of(), List.of(), List.of());
        assertRow(outcome.out(), outcome, "2", ITERATIONS);
        assertThat(outcome.rping()).as(outcome.all()).contains(" 2       " + ITERATIONS);
    }

    // ---- running both sides

    /** The result row for {@code size} and {@code iterations} in {@code printed}, whose run must have ended well. */
    private static String assertRow(String printed, Outcome outcome, String size, String iterations) {
        assertThat(outcome.status()).as(outcome.all()).isZero();
        assertThat(outcome.rpingStatus()).as(outcome.all()).isZero();
        String row = printed.lines().filter(line -> line.startsWith(" " + size + " ")).findFirst().orElse(null);
        assertThat(row).as(outcome.all()).isNotNull();
        assertThat(row.trim().split("\\s+")[1]).as(outcome.all()).isEqualTo(iterations);
        return row.strip();
    }

    /**
     * perftest converts cycles to time with a clock rate it samples when it reports; under emulation the samples
     * can be too noisy ("Correlation coefficient r^2 < 0.9") and it exits without a report, after the run. It runs
     * at real-time priority to keep the guest's other threads out of its samples, and a run it could not report
     * is run again (at most {@value #ATTEMPTS} times).
     */
    private static Outcome attempts(java.util.concurrent.Callable<Outcome> run) throws Exception {
        Outcome outcome = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            outcome = run.call();
            if (!outcome.rping().contains(NO_CLOCK)) {
                return outcome;
            }
        }
        return outcome;
    }

    /** perftest's {@code ib_<test>} as server on siw0, then {@code rddp} as its client. */
    private static Outcome ourClient(String test, Map<String, String> siw, List<String> ours) throws Exception {
        return attempts(() -> ourClientOnce(test, siw, ours));
    }

    private static Outcome ourClientOnce(String test, Map<String, String> siw, List<String> ours) throws Exception {
        SiwInteropGuestSuite.siw(siw);
        String port = Integer.toString(PORTS.getAndIncrement());
        Process perftest = SiwInteropGuestSuite.tool(List.of("chrt", "-f", "50", "ib_" + test, "-R", "-d", "siw0",
                "-p", port, "-n", ITERATIONS));
        SiwInteropGuestSuite.awaitListening(Integer.parseInt(port), perftest);
        List<String> args = new ArrayList<>(List.of(test.replace('_', '-'), SiwInteropGuestSuite.ADDRESS, "-p", port,
                "-n", ITERATIONS, "--timeout", "120"));
        args.addAll(ours);
        String[] ran = new String[2];
        int status = SiwInteropGuestSuite.rddp(args, ran, null);
        return SiwInteropGuestSuite.finish(status, ran, perftest, TOOL_SECONDS);
    }

    /** {@code rddp} as server, then perftest's {@code ib_<test>} as its client on siw0. */
    private static Outcome ourServer(String test, Map<String, String> siw, List<String> ours, List<String> theirs)
            throws Exception {
        return attempts(() -> ourServerOnce(test, siw, ours, theirs));
    }

    private static Outcome ourServerOnce(String test, Map<String, String> siw, List<String> ours,
            List<String> theirs) throws Exception {
        SiwInteropGuestSuite.siw(siw);
        String port = Integer.toString(PORTS.getAndIncrement());
        List<String> args = new ArrayList<>(List.of(test.replace('_', '-'), "-B", SiwInteropGuestSuite.ADDRESS, "-p",
                port, "-n", ITERATIONS, "--timeout", "120"));
        args.addAll(ours);
        String[] ran = new String[2];
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> SiwInteropGuestSuite.rddp(args, ran,
                listening));
        listening.get(60, TimeUnit.SECONDS);
        List<String> line = new ArrayList<>(List.of("chrt", "-f", "50", "ib_" + test, "-R", "-d", "siw0", "-p", port,
                "-n", ITERATIONS));
        line.addAll(theirs);
        line.add(SiwInteropGuestSuite.ADDRESS);
        Process perftest = SiwInteropGuestSuite.tool(line);
        int status = server.get(TOOL_SECONDS, TimeUnit.SECONDS);
        return SiwInteropGuestSuite.finish(status, ran, perftest, TOOL_SECONDS);
    }
}
