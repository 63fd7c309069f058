package org.rddp.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.rddp.ddp.DdpSegment;
import org.rddp.engine.WorkOpcode;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.SctpStacks;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;

/**
 * RDMA Write bandwidth and Send ping-pong latency over the SCTP adaptation, next to raw SCTP message transfer on
 * the same stack, in one run (both ends in this process, on loopback). Prints a table with the ratios. Arguments:
 * seconds per bandwidth measurement (default 3), ping-pongs (2000), SCTP backend ({@code usrsctp-udp}; any name
 * {@link SctpStacks#byName} knows, e.g. {@code kernel} in the VM).
 */
public final class SctpBench {
    private static final int LATENCY_MESSAGE = 8;
    private static final int WRITE_SIZE = 64 << 10;
    private static final AtomicInteger PORTS = new AtomicInteger(41000 + ThreadLocalRandom.current().nextInt(2000));

    private SctpBench() {
    }

    /** Runs the comparison and prints the table. */
    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        int pings = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        SctpStack stack = SctpStacks.byName(args.length > 2 ? args[2] : "usrsctp-udp");
        System.out.print(table(stack.name(), run(stack, seconds, pings)));
        System.exit(0); // usrsctp's threads are not daemons
    }

    /** What {@link #run} measured. Bandwidths in MiB/s, round trips in microseconds. */
    public record Results(int packetMessage, double raw64k, double rddp64k, double rawPacket, double rddpPacket,
            double rawLatency, double rddpLatency) {
        /** Every measurement, for checks. */
        public double[] all() {
            return new double[] {raw64k, rddp64k, rawPacket, rddpPacket, rawLatency, rddpLatency};
        }
    }

    /**
     * Measures bandwidth at 64 KiB messages (raw: one SCTP message, which SCTP fragments into two DATA chunks;
     * RDDP: one RDMA Write, which DDP splits into two segments) and at the largest message one packet carries
     * (raw: the SCTP message limit; RDDP: a Write that fills one DDP segment), and the 8-byte ping-pong.
     */
    public static Results run(SctpStack stack, double seconds, int pings) throws Exception {
        int message = maxMessage(stack);
        int oneSegmentWrite = message - DdpSctp.DDP_SSN_LENGTH - DdpSegment.TAGGED_HEADER_LENGTH;
        double raw64k = rawBandwidth(stack, WRITE_SIZE, seconds);
        double rawPacket = rawBandwidth(stack, message, seconds);
        double rawLatency = rawLatency(stack, pings);
        double[] rddp = rddp(stack, seconds, pings, oneSegmentWrite);
        return new Results(message, raw64k, rddp[0], rawPacket, rddp[1], rawLatency, rddp[2]);
    }

    /** The largest unfragmented message of an association on loopback: known once one is up. */
    private static int maxMessage(SctpStack stack) throws Exception {
        SctpSocket[] sockets = pair(stack, PORTS.incrementAndGet());
        try {
            return Math.min(sockets[0].maxMessage(), sockets[1].maxMessage());
        } finally {
            sockets[0].close();
            sockets[1].close();
        }
    }

    /** The results as a table with ratios; {@code stack} names the backend. */
    public static String table(String stack, Results results) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("%-50s %12s %12s %8s%n", stack + ", loopback", "raw SCTP", "RDDP", "ratio"));
        out.append(String.format("%-50s %12.1f %12.1f %8.2f%n", "bandwidth MiB/s, 64 KiB messages / Writes",
                results.raw64k(), results.rddp64k(), results.rddp64k() / results.raw64k()));
        out.append(String.format("%-50s %12.1f %12.1f %8.2f%n", "bandwidth MiB/s, one packet each ("
                + results.packetMessage() + " B)", results.rawPacket(), results.rddpPacket(),
                results.rddpPacket() / results.rawPacket()));
        out.append(String.format("%-50s %12.1f %12.1f %8.2f%n", "ping-pong round trip, median us (8 B)",
                results.rawLatency(), results.rddpLatency(), results.rddpLatency() / results.rawLatency()));
        return out.toString();
    }

    private static SctpSocket[] pair(SctpStack stack, int port) throws Exception {
        InetSocketAddress local = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        SctpStack.Listening listening = stack.listen(local, 8, DdpSctp.ADAPTATION_INDICATION);
        CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
        listening.start(accepted::complete);
        SctpSocket client = stack.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), local, 8,
                DdpSctp.ADAPTATION_INDICATION);
        SctpSocket server = accepted.get(10, TimeUnit.SECONDS);
        listening.close();
        client.onReady(() -> { });
        server.onReady(() -> { });
        return new SctpSocket[] {client, server};
    }

    private static double rawBandwidth(SctpStack stack, int message, double seconds) throws Exception {
        SctpSocket[] sockets = pair(stack, PORTS.incrementAndGet());
        MemorySegment out = Arena.ofAuto().allocate(message);
        long[] received = new long[1];
        Thread reader = Thread.ofPlatform().start(() -> {
            MemorySegment in = Arena.ofAuto().allocate(70000);
            SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
            Thread self = Thread.currentThread();
            sockets[1].onReady(() -> LockSupport.unpark(self));
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    int length = sockets[1].receive(in, info);
                    if (length > 0 && info.kind == SctpSocket.ReceivedMessage.DATA) {
                        received[0] += length;
                    } else if (length == SctpSocket.WOULD_BLOCK) {
                        LockSupport.park(); // woken by the socket's ready hook, as an application would be
                    }
                }
            } catch (java.io.IOException e) {
                // closed at the end
            }
        });
        Thread writer = Thread.currentThread();
        sockets[0].onReady(() -> LockSupport.unpark(writer));
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long start = System.nanoTime();
        long sent = 0;
        while (System.nanoTime() < end) {
            if (sockets[0].send(out, 0, message, 1, DdpSctp.PPID_DDP_SEGMENT, true) > 0) {
                sent += message;
            } else {
                LockSupport.parkNanos(1_000_000); // woken when the send buffer drains
            }
        }
        while (received[0] < sent && System.nanoTime() < end + 10_000_000_000L) {
            Thread.onSpinWait();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        reader.interrupt();
        reader.join();
        sockets[0].close();
        sockets[1].close();
        return received[0] / elapsed / (1 << 20);
    }

    /**
     * One thread plays both ends, as the RDDP ping-pong does (one thread polling both completion queues): send
     * the ping, poll the far socket until it arrives, send the pong back, poll the near socket. No thread
     * wake-up is on the path, only usrsctp and the packets. (Polling usrsctp_recvv sees a message as soon as
     * usrsctp queues it; waiting for the ready upcall instead measured 10-20 us slower.)
     */
    private static double rawLatency(SctpStack stack, int pings) throws Exception {
        SctpSocket[] sockets = pair(stack, PORTS.incrementAndGet());
        MemorySegment out = Arena.ofAuto().allocate(LATENCY_MESSAGE);
        MemorySegment in = Arena.ofAuto().allocate(70000);
        SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
        long[] rtt = new long[pings];
        for (int i = 0; i < pings; i++) {
            long start = System.nanoTime();
            bounce(sockets[0], sockets[1], out, in, info);
            bounce(sockets[1], sockets[0], out, in, info);
            rtt[i] = System.nanoTime() - start;
        }
        sockets[0].close();
        sockets[1].close();
        return RdmaRuns.percentile(rtt, 0.5) / 1000.0;
    }

    private static void bounce(SctpSocket from, SctpSocket to, MemorySegment out, MemorySegment in,
            SctpSocket.ReceivedMessage info) throws java.io.IOException {
        while (from.send(out, 0, LATENCY_MESSAGE, 1, DdpSctp.PPID_DDP_SEGMENT, true) < 0) {
            Thread.onSpinWait();
        }
        while (true) {
            int length = to.receive(in, info);
            if (length > 0 && info.kind == SctpSocket.ReceivedMessage.DATA) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    /** {@code {64 KiB write MiB/s, one-segment write MiB/s, median ping-pong us}} over the SCTP adaptation. */
    private static double[] rddp(SctpStack stack, double seconds, int pings, int oneSegmentWrite)
            throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress address = new InetSocketAddress(loopback, PORTS.incrementAndGet());
        RdmaDevice device = new RdmaDevice("bench");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue initiatorCq = device.createCompletionQueue(4096);
        CompletionQueue responderCq = device.createCompletionQueue(4096);
        QueuePair initiator = pd.createQueuePair(QpAttributes.of(initiatorCq, 1024, 1));
        QueuePair responder = pd.createQueuePair(QpAttributes.of(responderCq, 1024, 1));
        int size = WRITE_SIZE;
        MemoryRegion sink = pd.register(Arena.ofAuto().allocate(size), EnumSet.of(Access.LOCAL_WRITE,
                Access.REMOTE_WRITE));
        MemoryRegion source = pd.register(Arena.ofAuto().allocate(size), EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion pongs = pd.register(Arena.ofAuto().allocate(1024L * LATENCY_MESSAGE),
                EnumSet.of(Access.LOCAL_WRITE));
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        for (int i = 0; i < 1024; i++) {
            responder.postReceive(receive.wrId(i).sge(0, pongs, (long) i * LATENCY_MESSAGE, LATENCY_MESSAGE));
            initiator.postReceive(receive.wrId(i).sge(0, pongs, (long) i * LATENCY_MESSAGE, LATENCY_MESSAGE));
        }
        try (SctpConnectionManager server = new SctpConnectionManager(stack, loopback);
                SctpConnectionManager client = new SctpConnectionManager(stack, loopback);
                Listener listener = server.listen(address, request -> request.accept(responder,
                        new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
            client.connect(initiator, address, ConnectOptions.of(1, 1)).get(10, TimeUnit.SECONDS);
            WorkCompletion completion = new WorkCompletion();
            double bandwidth64k = RdmaRuns.writeBandwidth(initiator, initiatorCq, responderCq, sink, source,
                    WRITE_SIZE, seconds);
            double bandwidthPacket = RdmaRuns.writeBandwidth(initiator, initiatorCq, responderCq, sink, source,
                    oneSegmentWrite, seconds);
            SendWorkRequest ping = new SendWorkRequest(1).opcode(WorkOpcode.SEND).sge(0, source, 0, LATENCY_MESSAGE);

            long[] rtt = new long[pings];
            SendWorkRequest pong = new SendWorkRequest(1).opcode(WorkOpcode.SEND).sge(0, source, 0, LATENCY_MESSAGE);
            for (int i = 0; i < pings; i++) {
                long t0 = System.nanoTime();
                initiator.postSend(ping);
                RdmaRuns.awaitReceive(responderCq, completion);
                responder.postSend(pong);
                RdmaRuns.awaitReceive(initiatorCq, completion);
                rtt[i] = System.nanoTime() - t0;
                if (i % 512 == 0) {
                    for (int r = 0; r < 512; r++) {
                        responder.postReceive(receive.wrId(r).sge(0, pongs, 0, LATENCY_MESSAGE));
                        initiator.postReceive(receive.wrId(r).sge(0, pongs, 0, LATENCY_MESSAGE));
                    }
                }
            }
            return new double[] {bandwidth64k, bandwidthPacket, RdmaRuns.percentile(rtt, 0.5) / 1000.0};
        }
    }
}
