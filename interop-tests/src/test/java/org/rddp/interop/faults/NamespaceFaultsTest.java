package org.rddp.interop.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rddp.interop.PackagedRddp;

/**
 * Faults between two hosts (network namespaces joined by a veth pair, {@code interop-tests/faults/netns.sh}): the
 * {@code rddp} perftest commands, server in one namespace and client in the other, over MPA and over SCTP (usrsctp
 * over UDP; over raw IP too with {@code -Drddp.faults.full=true}), checksummed ({@code --verify}), while packets are
 * dropped, while a peer is killed, and while it is stopped. What must hold: every transfer that completes is intact
 * (both ends verify it); a stopped peer is waited for, as TCP waits; a dead peer is reported, with why, within the
 * dead-peer bound (SCTP: RTO and retransmission limits of {@code ProtocolParameters.defaults()}; TCP: the kernel's
 * reset); nothing hangs. The times measured are printed. Reordering: a share of the packets leaving either end waits
 * in a slow htb class (no {@code tc netem} here) and arrives after packets sent behind it. The full run adds 1 %
 * loss, 2 % and 10 % reordering, every operation, and a link down for 10 s.
 */
@Isolated("it measures; nothing else runs beside it")
class NamespaceFaultsTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final Path NETNS = ROOT.resolve("interop-tests/faults/netns.sh");
    private static final Path LOGS = ROOT.resolve("interop-tests/target/faults");
    private static final boolean FULL = Boolean.getBoolean("rddp.faults.full");
    private static final String SERVER = "10.77.0.1";
    private static final String UDP_PORT = "9899";
    private static int nextPort = 18700;

    private final List<Process> started = new ArrayList<>();

    /** A transport as the CLI names it, with what a client of it needs to find the server. */
    record Transport(String name, List<String> server, List<String> client) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    static void namespaces() throws Exception {
        Files.createDirectories(LOGS);
        run(NETNS.toString(), "up");
    }

    @AfterAll
    static void noNamespaces() throws Exception {
        run(NETNS.toString(), "down");
    }

    @AfterEach
    void clear() throws Exception {
        for (Process process : started) {
            process.destroyForcibly();
            new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor();
        }
        run(NETNS.toString(), "clear");
    }

    static Stream<Transport> transports() {
        Transport mpa = new Transport("mpa", List.of("-t", "mpa"), List.of("-t", "mpa"));
        Transport udp = new Transport("sctp-udp", List.of("-t", "sctp", "--sctp-stack", "usrsctp-udp", "--udp-port",
                UDP_PORT), List.of("-t", "sctp", "--sctp-stack", "usrsctp-udp", "--udp-port", UDP_PORT,
                        "--peer-udp-port", UDP_PORT));
        Transport raw = new Transport("sctp-raw", List.of("-t", "sctp", "--sctp-stack", "usrsctp-native"),
                List.of("-t", "sctp", "--sctp-stack", "usrsctp-native"));
        return FULL ? Stream.of(mpa, udp, raw) : Stream.of(mpa, udp);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void transfersUnderLossAndReorderingAreIntact(Transport transport) throws Exception {
        List<List<String>> faults = FULL
                ? List.of(List.of("loss", "0.01"), List.of("loss", "0.05"), List.of("reorder", "0.02"),
                        List.of("reorder", "0.10"))
                : List.of(List.of("loss", "0.05"), List.of("reorder", "0.05"));
        List<String> operations = FULL ? List.of("write-bw", "read-bw", "send-bw") : List.of("write-bw", "read-bw");
        for (List<String> fault : faults) {
            List<String> command = new ArrayList<>(List.of(NETNS.toString()));
            command.addAll(fault);
            run(command.toArray(String[]::new));
            for (String operation : operations) {
                String label = transport + "-" + operation + "-" + String.join("", fault);
                List<String> common = List.of(operation, "--verify", "-s", "65536", "-n", FULL ? "2000" : "300");
                long heldBefore = held();
                Ends ends = start(label, transport, common);
                long began = System.nanoTime();
                assertThat(ends.client.waitFor(10, TimeUnit.MINUTES)).as(label + ": client done").isTrue();
                assertThat(ends.server.waitFor(1, TimeUnit.MINUTES)).as(label + ": server done").isTrue();
                double seconds = (System.nanoTime() - began) / 1e9;
                assertThat(ends.client.exitValue()).as(ends.story()).isZero();
                assertThat(ends.server.exitValue()).as(ends.story()).isZero();
                String bandwidth = ends.clientOut().lines().filter(line -> line.trim().startsWith("65536"))
                        .findFirst().orElse("");
                assertThat(bandwidth).as(ends.story()).isNotEmpty();
                String reordered = "";
                if (fault.get(0).equals("reorder")) {
                    long held = held() - heldBefore;
                    assertThat(held).as(label + ": packets held back and overtaken").isPositive();
                    reordered = String.format(" (%d packets held back)", held);
                }
                System.out.printf("faults: %s: intact in %.1f s%s: %s%n", label, seconds, reordered,
                        bandwidth.trim());
            }
        }
    }

    /** Packets the slow classes of {@code netns.sh reorder} have carried so far. */
    private static long held() throws Exception {
        Process process = new ProcessBuilder(NETNS.toString(), "held").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(out).isZero();
        return Long.parseLong(out.trim());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aKilledClientIsReportedLostByTheServer(Transport transport) throws Exception {
        String label = transport + "-sigkill";
        Ends ends = start(label, transport, List.of("read-bw", "--verify", "-s", "65536", "-n", "10000000"));
        ends.awaitRunning();
        ends.client.destroyForcibly(); // SIGKILL
        long killed = System.nanoTime();
        assertThat(ends.server.waitFor(2, TimeUnit.MINUTES)).as(label + ": the server ends").isTrue();
        double seconds = (System.nanoTime() - killed) / 1e9;
        assertThat(ends.server.exitValue()).as(ends.story()).isEqualTo(1);
        // whichever comes first tells of the dead client: the transport's report (TCP's reset, SCTP's association
        // given up or aborted), or, where the transport waits longer (usrsctp over UDP hears nothing from a killed
        // process: its association ends only after its retransmissions), the server's own step timeout
        assertThat(ends.serverErr()).as(ends.story())
                .containsAnyOf("was lost", "connection ended", "connection closed", "no answer within");
        System.out.printf("faults: %s: the server reported the dead client after %.1f s: %s%n", label, seconds,
                ends.serverErr().lines().filter(line -> line.startsWith("rddp")).findFirst().orElse(""));
    }

    /**
     * The link goes down for 10 s during a transfer, then comes back. TCP rides the outage out (its retransmissions
     * back off past it), and so does SCTP (the default parameters end an association after 31 s of silence at the
     * least: {@code ProtocolParameters.defaults().stallRiddenOut()}). Either way: intact, or reported with why, and
     * nothing hangs.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aLinkDownForTenSecondsEndsCleanly(Transport transport) throws Exception {
        String label = transport + "-link-down";
        Ends ends = start(label, transport, List.of("write-bw", "--verify", "-s", "65536", "-n", "3000"));
        ends.awaitRunning();
        run(NETNS.toString(), "link-down");
        long down = System.nanoTime();
        ends.client.waitFor(10, TimeUnit.SECONDS);
        long left = TimeUnit.SECONDS.toNanos(10) - (System.nanoTime() - down);
        if (left > 0) {
            ends.server.waitFor(left, TimeUnit.NANOSECONDS);
        }
        run(NETNS.toString(), "link-up");
        assertThat(ends.client.waitFor(2, TimeUnit.MINUTES)).as(label + ": the client ends").isTrue();
        assertThat(ends.server.waitFor(1, TimeUnit.MINUTES)).as(label + ": the server ends").isTrue();
        double seconds = (System.nanoTime() - down) / 1e9;
        if (ends.client.exitValue() == 0) {
            assertThat(ends.server.exitValue()).as(ends.story()).isZero(); // both verified the data
        } else {
            assertThat(ends.client.exitValue()).as(ends.story()).isEqualTo(1);
            assertThat(ends.server.exitValue()).as(ends.story()).isEqualTo(1);
            assertThat(ends.clientErr() + ends.serverErr()).as(ends.story()).contains("was lost");
        }
        System.out.printf("faults: %s: %s, both ends done %.1f s after the link went down%n", label,
                ends.client.exitValue() == 0 ? "completed intact" : "reported lost on both ends", seconds);
    }

    /**
     * A peer that stops for 30 s (a garbage-collection pause, a VM stopped: here SIGSTOP) is ridden out, as TCP/MPA
     * rides it out: the default parameters end an association only after 31 s of silence at the least
     * ({@code ProtocolParameters.defaults().stallRiddenOut()}), so the transfer goes on when the peer does and both
     * ends verify it.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aStoppedSctpClientIsRiddenOutAndTheTransferCompletesWhenItResumes() throws Exception {
        Transport udp = transports().filter(t -> t.name().equals("sctp-udp")).findFirst().orElseThrow();
        String label = "sctp-udp-sigstop";
        // the commands' own wait for a step (--timeout, 30 s by default) runs on through the stop: longer, so that
        // what is tested is the association, not the client's patience after it resumes
        Ends ends = start(label, udp, List.of("read-bw", "--verify", "-s", "65536", "-n", "30000", "--timeout",
                "120"));
        ends.awaitRunning();
        signal(ends.client, "-STOP");
        long stopped = System.nanoTime();
        long stopFor = TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - stopped < stopFor && ends.server.isAlive()) {
            ends.server.waitFor(stopFor - (System.nanoTime() - stopped), TimeUnit.NANOSECONDS);
        }
        assertThat(ends.server.isAlive()).as(label + ": the server waits out the stop; " + ends.story()).isTrue();
        signal(ends.client, "-CONT");
        long resumed = System.nanoTime();
        assertThat(ends.client.waitFor(2, TimeUnit.MINUTES)).as(label + ": the resumed client ends").isTrue();
        assertThat(ends.server.waitFor(1, TimeUnit.MINUTES)).as(label + ": the server ends").isTrue();
        double finished = (System.nanoTime() - resumed) / 1e9;
        assertThat(ends.client.exitValue()).as(ends.story()).isZero();
        assertThat(ends.server.exitValue()).as(ends.story()).isZero(); // both verified the data
        System.out.printf("faults: %s: stopped for %d s, the transfer went on and completed intact %.1f s after the "
                + "client resumed%n", label, TimeUnit.NANOSECONDS.toSeconds(stopFor), finished);
    }

    // ------------------------------------------------------------------ the two ends

    /** A server in rddp-a and its client in rddp-b, their output in {@code interop-tests/target/faults}. */
    record Ends(String label, Process server, Process client) {
        String serverErr() throws IOException {
            return Files.readString(LOGS.resolve(label + ".server.err"), StandardCharsets.UTF_8);
        }

        String clientErr() throws IOException {
            return Files.readString(LOGS.resolve(label + ".client.err"), StandardCharsets.UTF_8);
        }

        String clientOut() throws IOException {
            return Files.readString(LOGS.resolve(label + ".client.out"), StandardCharsets.UTF_8);
        }

        String story() throws IOException {
            return label + "\n--- server stderr:\n" + serverErr() + "\n--- client stderr:\n" + clientErr()
                    + "\n--- client stdout:\n" + clientOut();
        }

        /** Waits until the client prints the peer's address: connected, the transfer starts. */
        void awaitRunning() throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!clientOut().contains("remote address:")) {
                assertThat(client.isAlive()).as(story()).isTrue();
                assertThat(System.nanoTime()).as("%s: the transfer starts within 60 s", label).isLessThan(deadline);
                client.waitFor(50, TimeUnit.MILLISECONDS);
            }
        }
    }

    private Ends start(String label, Transport transport, List<String> command) throws Exception {
        String port = Integer.toString(nextPort++);
        List<String> server = new ArrayList<>(command);
        server.addAll(transport.server());
        server.addAll(List.of("-B", SERVER, "-p", port));
        Process serverProcess = rddp("a", label + ".server", server);
        String listening = "Waiting for client to connect";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Path serverOut = LOGS.resolve(label + ".server.out");
        while (!Files.readString(serverOut, StandardCharsets.UTF_8).contains(listening)) {
            assertThat(serverProcess.isAlive()).as("%s: the server starts", label).isTrue();
            assertThat(System.nanoTime()).as("%s: the server listens within 60 s", label).isLessThan(deadline);
            serverProcess.waitFor(50, TimeUnit.MILLISECONDS);
        }
        List<String> client = new ArrayList<>(command);
        client.addAll(transport.client());
        client.addAll(List.of(SERVER, "-p", port));
        return new Ends(label, serverProcess, rddp("b", label + ".client", client));
    }

    /** {@code rddp args} in namespace {@code ns}: the JVM itself, so that signals reach it. */
    private Process rddp(String ns, String log, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(NETNS.toString(), ns));
        command.addAll(PackagedRddp.java());
        command.addAll(List.of("-m", "org.rddp.cli/org.rddp.cli.Main"));
        command.addAll(args);
        Process process = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectOutput(LOGS.resolve(log + ".out").toFile()).redirectError(LOGS.resolve(log + ".err").toFile())
                .start();
        started.add(process);
        return process;
    }

    private static void signal(Process process, String signal) throws Exception {
        assertThat(new ProcessBuilder("kill", signal, Long.toString(process.pid())).start().waitFor()).isZero();
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
