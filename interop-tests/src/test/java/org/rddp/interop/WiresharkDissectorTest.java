package org.rddp.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.transport.mpa.MpaConnectionManager;
import org.rddp.transport.mpa.MpaOptions;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;

/**
 * The project's Wireshark dissector ({@code wireshark/rddp.lua}) against the project's own traffic: tshark
 * captures loopback with the dissector loaded while two stacks connect with enhanced setup and exchange a Send and
 * an RDMA Write, once over SCTP (usrsctp over UDP, PPID 16 and 17) and once over TCP/MPA revision 2, and the
 * fields it decodes are checked.
 */
class WiresharkDissectorTest {
    private static final Path DISSECTOR = locate("wireshark/rddp.lua");
    private static final int IRD = 4;
    private static final int ORD = 2;

    private static Path locate(String relative) {
        Path here = Path.of("").toAbsolutePath();
        while (here != null && !Files.exists(here.resolve(relative))) {
            here = here.getParent();
        }
        if (here == null) {
            throw new IllegalStateException(relative + " not found above " + Path.of("").toAbsolutePath());
        }
        return here.resolve(relative);
    }

    @Test
    void ddpOverSctpAndItsSessionControlAreDecoded() throws Exception {
        UsrsctpStack stack = UsrsctpStack.udp();
        int udpPort = UsrsctpStack.udpPort();
        int sctpPort = 30000 + ThreadLocalRandom.current().nextInt(2000);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (Capture capture = Capture.start("udp port " + udpPort, "rddp_sctp", "-d", "udp.port==" + udpPort + ",sctp",
                "-e", "rddp.function", "-e", "rddp.enh.ird", "-e", "rddp.enh.ord", "-e",
                "rddp.rdmap.opcode", "-e", "rddp.ddp_ssn");
                SctpConnectionManager initiator = new SctpConnectionManager(stack, loopback);
                SctpConnectionManager responder = new SctpConnectionManager(stack, loopback)) {
            exchange(initiator, responder, new InetSocketAddress(loopback, sctpPort));
            capture.awaitRow("an enhanced Initiate with the initiator's IRD/ORD (PPID 17, code 5)",
                    row -> row[0].equals("0x0005") && row[1].equals(String.valueOf(IRD))
                            && row[2].equals(String.valueOf(ORD)));
            capture.awaitRow("an enhanced Accept (code 6)", row -> row[0].equals("0x0006"));
            capture.awaitRow("a Send (opcode 3) in a DDP Segment chunk (PPID 16)", row -> row[3].equals("3"));
            capture.awaitRow("an RDMA Write (opcode 0)", row -> row[3].equals("0"));
        }
    }

    @Test
    void mpaRevision2FramesAndTheirFpdusAreDecoded() throws Exception {
        int port = 32000 - ThreadLocalRandom.current().nextInt(2000);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        // Wireshark's own MPA heuristic (revision 1) would claim the frames first, and a dissector registered for
        // the (random) port would be tried before any heuristic
        try (Capture capture = Capture.start("tcp port " + port, "rddp_mpa", "--disable-protocol", "iwarp_mpa", "-o",
                "tcp.try_heuristic_first:TRUE", "-e", "rddp.mpa.key", "-e", "rddp.mpa.revision", "-e",
                "rddp.mpa.enhanced", "-e", "rddp.enh.ird", "-e", "rddp.enh.ord", "-e", "rddp.rdmap.opcode", "-e",
                "rddp.mpa.crc");
                MpaConnectionManager initiator = new MpaConnectionManager(MpaOptions.defaults(), loopback);
                MpaConnectionManager responder = new MpaConnectionManager(MpaOptions.defaults(), loopback)) {
            exchange(initiator, responder, new InetSocketAddress(loopback, port));
            capture.awaitRow("the Request: rev 2, S=1, the initiator's IRD/ORD", row -> row[0].equals(
                    "MPA ID Req Frame") && row[1].equals("2") && row[2].equals("1") && row[3].equals(
                    String.valueOf(IRD)) && row[4].equals(String.valueOf(ORD)));
            capture.awaitRow("the Reply, enhanced too", row -> row[0].equals("MPA ID Rep Frame") && row[1].equals("2")
                    && row[2].equals("1"));
            capture.awaitRow("an FPDU with a Send", row -> row[5].equals("3"));
            capture.awaitRow("an FPDU with an RDMA Write", row -> row[5].equals("0"));
        }
    }

    /** Enhanced setup with IRD 4 / ORD 2, then a 100-octet Send and a 4 KiB RDMA Write from the initiator. */
    private static void exchange(ConnectionManager initiatorCm, ConnectionManager responderCm,
            InetSocketAddress address) throws Exception {
        RdmaDevice device = new RdmaDevice("wireshark");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue initiatorCq = device.createCompletionQueue(64);
        CompletionQueue responderCq = device.createCompletionQueue(64);
        QueuePair initiator = pd.createQueuePair(QpAttributes.of(initiatorCq, 16, 1));
        QueuePair responder = pd.createQueuePair(QpAttributes.of(responderCq, 16, 1));
        MemoryRegion sink = pd.register(Arena.ofAuto().allocate(4096), EnumSet.of(Access.LOCAL_WRITE,
                Access.REMOTE_WRITE));
        MemoryRegion source = pd.register(Arena.ofAuto().allocate(4096), EnumSet.of(Access.LOCAL_WRITE));
        responder.postReceive(new ReceiveWorkRequest(1).wrId(1).sge(0, sink, 0, 128));
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        try (Listener listener = responderCm.listen(address, request -> request.accept(responder,
                new AcceptOptions(PrivateData.EMPTY, IRD, ORD)).whenComplete((connection, failure) -> {
                    if (failure != null) {
                        accepted.completeExceptionally(failure);
                    } else {
                        accepted.complete(connection);
                    }
                }))) {
            initiatorCm.connect(initiator, address, new ConnectOptions(PrivateData.EMPTY, true, IRD, ORD, false,
                    java.util.Set.of(), Duration.ofSeconds(10))).get(10, TimeUnit.SECONDS);
            accepted.get(10, TimeUnit.SECONDS);
            WorkCompletion completion = new WorkCompletion();
            initiator.postSend(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(2).sge(0, source, 0, 100));
            await(responderCq, completion, WcOpcode.RECV);
            initiator.postSend(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(3)
                    .remote(sink.rkey(), 0).sge(0, source, 0, 4096));
            await(initiatorCq, completion, WcOpcode.RDMA_WRITE);
            // a second Send behind the Write: when it is received the Write is on the wire and placed
            responder.postReceive(new ReceiveWorkRequest(1).wrId(4).sge(0, sink, 0, 128));
            initiator.postSend(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(5).sge(0, source, 0, 8));
            await(responderCq, completion, WcOpcode.RECV);
        }
    }

    private static void await(CompletionQueue cq, WorkCompletion into, WcOpcode wanted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (cq.poll(into)) {
                assertThat(into.status()).isEqualTo(WcStatus.SUCCESS);
                if (into.opcode() == wanted) {
                    return;
                }
                continue;
            }
            cq.requestNotification(false);
            if (!cq.poll(into)) {
                cq.awaitNotification(Duration.ofMillis(100));
            } else if (into.opcode() == wanted) {
                return;
            }
        }
        throw new AssertionError("no " + wanted + " completion");
    }

    /**
     * tshark capturing loopback live and decoding with the dissector, one row of fields per packet its display
     * filter keeps. Packets reach it in the kernel's capture blocks, so rows are awaited, not expected at once.
     */
    private static final class Capture implements AutoCloseable {
        private final Process process;
        private final BlockingQueue<String[]> rows = new LinkedBlockingQueue<>();
        private final List<String[]> seen = new ArrayList<>();
        private final List<String> complaints = new java.util.concurrent.CopyOnWriteArrayList<>();

        private Capture(Process process) {
            this.process = process;
        }

        /**
         * Starts tshark on loopback with {@code captureFilter}, keeping the packets {@code displayFilter} matches and
         * printing the fields {@code decoding} asks for. Returns once tshark shows a probe datagram: "Capturing on"
         * comes before the kernel filter is in place, and packets sent in between would be missed.
         */
        static Capture start(String captureFilter, String displayFilter, String... decoding) throws Exception {
            int probe = 9 + ThreadLocalRandom.current().nextInt(1000); // UDP discard-like ports nobody listens on
            List<String> command = new ArrayList<>(List.of("tshark", "-i", "lo", "-f", "(" + captureFilter
                    + ") or udp dst port " + probe, "-Y", "(" + displayFilter + ") or udp.dstport == " + probe,
                    "-l", "-X", "lua_script:" + DISSECTOR, "-T", "fields", "-E", "occurrence=f", "-E",
                    "separator=|"));
            command.addAll(List.of(decoding));
            command.addAll(List.of("-e", "udp.dstport"));
            Process process = new ProcessBuilder(command).start();
            Capture capture = new Capture(process);
            BufferedReader errors = new BufferedReader(new InputStreamReader(process.getErrorStream(),
                    StandardCharsets.UTF_8));
            for (String line = errors.readLine(); line != null; line = errors.readLine()) {
                if (line.startsWith("Capturing on")) {
                    Thread.ofPlatform().daemon().start(() -> capture.drain(errors));
                    Thread.ofPlatform().daemon().start(capture::collect);
                    capture.awaitProbe(probe);
                    return capture;
                }
            }
            throw new IOException("tshark did not start capturing (is it installed? apt-get install tshark)");
        }

        /** Sends probe datagrams until tshark shows one. */
        private void awaitProbe(int probe) throws Exception {
            String port = String.valueOf(probe);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            try (java.net.DatagramSocket socket = new java.net.DatagramSocket()) {
                java.net.DatagramPacket datagram = new java.net.DatagramPacket(new byte[1], 1,
                        InetAddress.getLoopbackAddress(), probe);
                while (System.nanoTime() < deadline) {
                    socket.send(datagram);
                    String[] row = rows.poll(50, TimeUnit.MILLISECONDS);
                    while (row != null) {
                        if (row[row.length - 1].equals(port)) {
                            rows.clear(); // probes only from here on: the capture is live
                            return;
                        }
                        row = rows.poll();
                    }
                }
            }
            throw new IOException("tshark never showed the probe datagrams to UDP port " + probe + ": " + complaints);
        }

        private void collect() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    rows.add(line.split("\\|", -1));
                }
            } catch (IOException e) {
                // tshark is gone
            }
        }

        private void drain(BufferedReader errors) {
            try {
                for (String line = errors.readLine(); line != null; line = errors.readLine()) {
                    complaints.add(line); // kept for the failure message
                }
            } catch (IOException e) {
                // tshark is gone
            }
        }

        /** Waits until a decoded packet matches {@code wanted}, or fails with {@code what}. */
        void awaitRow(String what, java.util.function.Predicate<String[]> wanted) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            for (String[] row : seen) {
                if (wanted.test(row)) {
                    return;
                }
            }
            while (System.nanoTime() < deadline) {
                String[] row = rows.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (row == null) {
                    break;
                }
                seen.add(row);
                if (wanted.test(row)) {
                    return;
                }
            }
            throw new AssertionError("tshark with the dissector did not show " + what + "; it decoded "
                    + seen.stream().map(r -> String.join("|", r)).toList() + "; it said " + complaints);
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
