package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.rddp.cli.Main;

/**
 * {@code rddp ping} against rdma-core's {@code rping} on Linux soft-iWARP, in the VM ({@code siw-host.sh} puts siw on
 * a dummy interface at {@link #ADDRESS}). Our side runs in this process, rping in its own; siw's MPA settings are
 * changed between cases through its module parameters (setup.sh builds it with them). Each ping is an RDMA Read of
 * the client's buffer by the server, a Send, an RDMA Write back, a Send; both sides check the data ({@code -V}),
 * so every case that connects moves verified data in both directions. Not a host test: run by {@link GuestMain}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SiwInteropGuestSuite {
    /** siw0's address (dummy0). */
    static final String ADDRESS = "192.0.2.1";
    static final Map<String, String> SIW_DEFAULTS = Map.of("mpa_version", "2", "peer_to_peer", "N",
            "mpa_crc_required", "N", "mpa_crc_strict", "N");
    private static final Path PARAMETERS = Path.of("/sys/module/siw/parameters");
    private static final AtomicInteger PORTS = new AtomicInteger(7174);
    private static final Map<Process, Path> LOGS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final long RPING_SECONDS = 240;
    /** How long rping gets to give up when the connection was refused: siw's listener may never let it go. */
    private static final long FAILING_SECONDS = 20;

    /** What our side printed, and how rping ended. */
    record Outcome(int status, String out, String err, int rpingStatus, String rping) {
        String all() {
            return "rddp (" + status + "):\n" + out + err + "\nrping (" + rpingStatus + "):\n" + rping;
        }
    }

    @BeforeEach
    void siwDefaults() throws IOException {
        siw(SIW_DEFAULTS);
    }

    // ---- our client, rping's server (siw the MPA responder)

    @Test
    void ourClientRevision2WithCrcMovesBulkDataBothWays() throws Exception {
        Outcome outcome = ourClient(Map.of(), List.of("-S", "65535", "-C", "30"));
        assertConnected(outcome, "[CRC]", "client-server");
        assertThat(outcome.out()).contains("client: 30 pings of 65535 octets, data verified");
        assertThat(outcome.rping()).contains("server ping data: rdma-ping-29: ");
    }

    @Test
    void ourClientWithoutCrc() throws Exception {
        Outcome outcome = ourClient(Map.of(), List.of("--no-crc", "-C", "20", "-S", "4096"));
        assertConnected(outcome, "[no CRC]", "client-server");
    }

    /**
     * Revision 1 connects, but carries no IRD/ORD (RFC 5044 leaves them to the ULP), and rping's server accepts
     * with librdmacm's defaults, which take the depths from the enhanced data: siw's ORD is 0 and rping's first
     * RDMA Read fails to post. Our client hears the connection close, and says so.
     */
    @Test
    void ourClientRevision1ConnectsButRpingsServerHasNoReadCredits() throws Exception {
        Outcome outcome = ourClient(Map.of(), List.of("--mpa-rev", "1", "-C", "1"), FAILING_SECONDS);
        assertThat(outcome.out()).as(outcome.all()).contains("[CRC]").contains("client-server");
        assertThat(outcome.status()).as(outcome.all()).isOne();
        assertThat(outcome.err()).as(outcome.all()).contains("the connection closed waiting for the server's "
                + "go-ahead after its RDMA Read (ping 0)");
        assertThat(outcome.rping()).as(outcome.all()).contains("post send error");
    }

    @Test
    void ourClientPeerToPeerWithAWriteRtr() throws Exception {
        Outcome outcome = ourClient(Map.of(), List.of("--p2p", "write", "-C", "20", "--no-crc"));
        assertConnected(outcome, "[no CRC]", "peer-to-peer with WRITE RTR");
    }

    @Test
    void ourClientPeerToPeerWithAReadRtr() throws Exception {
        Outcome outcome = ourClient(Map.of(), List.of("--p2p", "read", "-C", "20"));
        assertConnected(outcome, "[CRC]", "peer-to-peer with READ RTR");
    }

    /**
     * siw cannot take a Send as RTR and proposes a Write, which this client cannot send: RFC 6581 §9.2's error.
     * Runs last: the Terminate where siw waits for the RTR leaves rping's server stuck in setup, and killing it then
     * has hit a BUG in the 6.1 kernel's iw_cm (cm_work_handler), after which no iWARP connection completes.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void ourClientOfferingOnlyASendRtrIsAnsweredWithAWriteRtrAndGivesUp() throws Exception {
        Outcome outcome = ourClient(Map.of(), List.of("--p2p", "send", "-C", "1"), FAILING_SECONDS);
        assertThat(outcome.status()).as(outcome.all()).isOne();
        assertThat(outcome.err()).as(outcome.all()).contains("connect error").containsIgnoringCase("RTR");
        assertThat(outcome.rpingStatus()).as(outcome.all()).isNotZero();
    }

    @Test
    @Order(Integer.MAX_VALUE - 1)
    void ourClientAskingForMarkersIsRejectedBySiw() throws Exception {
        Outcome outcome = ourClient(Map.of(), List.of("--markers", "-C", "1"), FAILING_SECONDS);
        assertThat(outcome.status()).as(outcome.all()).isOne();
        assertThat(outcome.err()).as(outcome.all()).contains("connect error").containsIgnoringCase("reject");
    }

    /**
     * siw's mpa_crc_required shapes only the Requests it sends: as responder it answers a Request without C with
     * C = 0 even when strict, so CRCs stay off (RFC 5044 §7.1.1 leaves the choice to each side's preference).
     */
    @Test
    void siwRequiringCrcAsResponderFollowsAClientThatDidNotAsk() throws Exception {
        Outcome outcome = ourClient(Map.of("mpa_crc_required", "Y", "mpa_crc_strict", "Y"),
                List.of("--no-crc", "-C", "20"));
        assertConnected(outcome, "[no CRC]", "client-server");
    }

    @Test
    void siwStrictlyWithoutCrcRejectsAClientAskingForIt() throws Exception {
        Outcome outcome = ourClient(Map.of("mpa_crc_strict", "Y"), List.of("-C", "1"), FAILING_SECONDS);
        assertThat(outcome.status()).as(outcome.all()).isOne();
        assertThat(outcome.err()).as(outcome.all()).contains("connect error").containsIgnoringCase("reject");
    }

    // ---- rping's client (siw the MPA initiator), our server

    @Test
    void rpingClientRevision2GetsCrcFromOurServerAndMovesBulkDataBothWays() throws Exception {
        Outcome outcome = ourServer(Map.of(), List.of("-S", "65535"), 30);
        assertServed(outcome, 30, "[CRC]", "client-server");
    }

    @Test
    void rpingClientWithoutCrc() throws Exception {
        Outcome outcome = ourServer(Map.of(), List.of("--no-crc"), 20);
        assertServed(outcome, 20, "[no CRC]", "client-server");
    }

    @Test
    void rpingClientRevision1() throws Exception {
        Outcome outcome = ourServer(Map.of("mpa_version", "1"), List.of(), 20);
        assertServed(outcome, 20, "[CRC]", "client-server");
    }

    @Test
    void rpingClientPeerToPeerOnOurChoiceOfRtr() throws Exception {
        Outcome outcome = ourServer(Map.of("peer_to_peer", "Y"), List.of(), 20);
        assertServed(outcome, 20, "[CRC]", "peer-to-peer with");
    }

    /**
     * Runs first, on a fresh siw: once, after the other cases, rping's client never got past setup here (our server
     * had accepted and waited for its first message), while the case alone passes; not understood yet.
     */
    @Test
    @Order(1)
    void rpingClientPeerToPeerWithAReadRtr() throws Exception {
        Outcome outcome = ourServer(Map.of("peer_to_peer", "Y"), List.of("--rtr-types", "read"), 20);
        assertServed(outcome, 20, "[CRC]", "peer-to-peer with READ RTR");
    }

    /** siw requiring CRC as initiator rejects a Reply without C: ours sets C whenever the initiator asked. */
    @Test
    void rpingClientPeerToPeerWithAWriteRtrAndCrcRequiredBySiw() throws Exception {
        Outcome outcome = ourServer(Map.of("peer_to_peer", "Y", "mpa_crc_required", "Y"),
                List.of("--rtr-types", "write", "--no-crc"), 20);
        assertServed(outcome, 20, "[CRC]", "peer-to-peer with WRITE RTR");
    }

    /** An RFC 5044-only server closes on siw's enhanced request (RFC 6581 §10), and says why. */
    @Test
    void ourRevision1ServerClosesOnSiwsEnhancedRequest() throws Exception {
        Outcome outcome = ourServer(Map.of(), List.of("--mpa-rev", "1"), 1, FAILING_SECONDS);
        assertThat(outcome.status()).as(outcome.all()).isOne();
        assertThat(outcome.err()).as(outcome.all()).contains("refused the client's connection");
        assertThat(outcome.rpingStatus()).as(outcome.all()).isNotZero();
    }

    private static void assertConnected(Outcome outcome, String crc, String model) {
        assertThat(outcome.status()).as(outcome.all()).isZero();
        assertThat(outcome.out()).as(outcome.all()).contains(crc).contains(model).contains("data verified");
        // rping's server ends with status 0 once the client disconnects, unless its own teardown races (main closes
        // the CM event channel while its CM thread still reads it, and that thread exits with the error); its -v
        // lines and its stderr interleave mid-line, so look for its error messages rather than parse it
        assertThat(outcome.rping()).as(outcome.all()).contains("server ping data: rdma-ping-0: ")
                .doesNotContain("error ", "failed", "mismatch", "bogus");
        if (outcome.rpingStatus() != 0) {
            assertThat(outcome.rping()).as(outcome.all()).contains("rdma_get_cm_event: Bad file descriptor");
        }
    }

    private static void assertServed(Outcome outcome, int pings, String crc, String model) {
        assertThat(outcome.status()).as(outcome.all()).isZero();
        assertThat(outcome.out()).as(outcome.all()).contains(crc).contains(model)
                .contains("server: client disconnected after " + pings + " pings, data verified");
        assertThat(outcome.rping()).as(outcome.all()).contains("ping data: rdma-ping-" + (pings - 1) + ": ")
                .doesNotContain("error ", "failed", "mismatch", "bogus");
        if (outcome.rpingStatus() != 0) { // the same teardown race as rping's server's (see assertConnected)
            assertThat(outcome.rping()).as(outcome.all()).contains("rdma_get_cm_event: Bad file descriptor");
        }
    }

    /** rping -s on siw, then {@code rddp ping -c} with {@code ours} (and -V) against it. */
    private static Outcome ourClient(Map<String, String> siw, List<String> ours) throws Exception {
        return ourClient(siw, ours, RPING_SECONDS);
    }

    private static Outcome ourClient(Map<String, String> siw, List<String> ours, long rpingSeconds)
            throws Exception {
        siw(siw);
        String port = Integer.toString(PORTS.getAndIncrement());
        List<String> size = sizeOf(ours);
        Process rping = rping(List.of("-s", "-v", "-a", ADDRESS, "-p", port), size);
        awaitListening(Integer.parseInt(port), rping);
        List<String> args = new ArrayList<>(List.of("ping", "-c", "-V", "-v", "-a", ADDRESS, "-p", port));
        args.addAll(ours);
        String[] ran = new String[2];
        int status = rddp(args, ran, null);
        return finish(status, ran, rping, rpingSeconds);
    }

    /** {@code rddp ping -s} with {@code ours} (and -V), then rping -c -C {@code count} on siw against it. */
    private static Outcome ourServer(Map<String, String> siw, List<String> ours, int count) throws Exception {
        return ourServer(siw, ours, count, RPING_SECONDS);
    }

    private static Outcome ourServer(Map<String, String> siw, List<String> ours, int count, long rpingSeconds)
            throws Exception {
        siw(siw);
        String port = Integer.toString(PORTS.getAndIncrement());
        List<String> args = new ArrayList<>(List.of("ping", "-s", "-V", "-a", ADDRESS, "-p", port, "--timeout", "60"));
        args.addAll(ours);
        String[] ran = new String[2];
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> rddp(args, ran, listening));
        listening.get(60, TimeUnit.SECONDS);
        Process rping = rping(List.of("-c", "-v", "-V", "-a", ADDRESS, "-p", port, "-C", Integer.toString(count)),
                sizeOf(ours));
        int status = server.get(RPING_SECONDS, TimeUnit.SECONDS);
        return finish(status, ran, rping, rpingSeconds);
    }

    private static List<String> sizeOf(List<String> ours) {
        int at = ours.indexOf("-S");
        return at < 0 ? List.of() : List.of("-S", ours.get(at + 1));
    }

    /** rping with its output in a file: a pipe nobody reads would stall it once full (-v prints every ping). */
    private static Process rping(List<String> args, List<String> more) throws IOException {
        List<String> line = new ArrayList<>(List.of("rping"));
        line.addAll(args);
        line.addAll(more);
        return tool(line);
    }

    /** One of rdma-core's tools, its output (both streams) in a file that {@link #finish} reads. */
    static Process tool(List<String> line) throws IOException {
        Path log = Files.createTempFile("rping-", ".log");
        log.toFile().deleteOnExit();
        Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        LOGS.put(process, log);
        return process;
    }

    /** Waits up to {@code seconds} for the tool to end (then kills it), and puts both sides' output together. */
    static Outcome finish(int status, String[] ran, Process rping, long seconds) throws Exception {
        String ending = "";
        if (!rping.waitFor(seconds, TimeUnit.SECONDS)) {
            rping.destroyForcibly();
            ending = "\n(rping still running after " + seconds + " s: killed)";
        }
        boolean ended = rping.waitFor(10, TimeUnit.SECONDS); // a process stuck in siw's kernel code may not die
        String output = Files.readString(LOGS.remove(rping), StandardCharsets.UTF_8) + ending;
        return new Outcome(status, ran[0], ran[1], ended ? rping.exitValue() : -1, output);
    }

    /** Runs {@code rddp args} here; completes {@code listening} (if given) once it listens. */
    static int rddp(List<String> args, String[] printed, CompletableFuture<Void> listening) {
        return rddp(args, printed, listening, "server: listening on");
    }

    /** Runs {@code rddp args} here; completes {@code listening} (if given) once it prints {@code marker}. */
    static int rddp(List<String> args, String[] printed, CompletableFuture<Void> listening, String marker) {
        ByteArrayOutputStream out = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                super.write(b, off, len);
                if (listening != null && toString(StandardCharsets.UTF_8).contains(marker)) {
                    listening.complete(null);
                }
            }
        };
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            return Main.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
        } finally {
            printed[0] = out.toString(StandardCharsets.UTF_8);
            printed[1] = err.toString(StandardCharsets.UTF_8);
            if (listening != null) {
                listening.complete(null);
            }
        }
    }

    /** Sets siw's module parameters. */
    static void siw(Map<String, String> parameters) throws IOException {
        for (Map.Entry<String, String> parameter : parameters.entrySet()) {
            Files.writeString(PARAMETERS.resolve(parameter.getKey()), parameter.getValue());
        }
    }

    /**
     * Waits until rping's listener is in the kernel's TCP table (siw listens on a kernel socket), or rping has
     * exited: rping prints nothing when it is ready.
     */
    static void awaitListening(int port, Process rping) throws Exception {
        String local = String.format(Locale.ROOT, ":%04X ", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (rping.isAlive() && System.nanoTime() < deadline) {
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                for (String row : Files.readAllLines(Path.of(table))) {
                    String[] fields = row.trim().split("\\s+");
                    if (fields.length > 3 && fields[1].endsWith(local.trim()) && "0A".equals(fields[3])) {
                        return;
                    }
                }
            }
            rping.waitFor(20, TimeUnit.MILLISECONDS); // wakes at once if rping exits
        }
        throw new AssertionError(rping.info().command().orElse("the tool") + " never listened on port "
                + port + " (alive: " + rping.isAlive() + ")");
    }
}
