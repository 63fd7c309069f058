package org.rddp.bench;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.rddp.engine.WorkOpcode;
import org.rddp.transport.mpa.MpaConnectionManager;
import org.rddp.transport.mpa.MpaOptions;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
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
 * RDMA Write bandwidth and Send ping-pong latency over TCP/MPA (CRC on, no Markers: {@link MpaOptions#defaults()}),
 * next to plain Java TCP sockets moving the same bytes, in one run (both ends in this process, on loopback).
 * Prints a table with the ratios MPA / plain TCP and the targets. Arguments: seconds per bandwidth measurement
 * (default 3), ping-pongs (2000).
 */
public final class MpaBench {
    private static final int LATENCY_MESSAGE = 8;
    private static final int WRITE_SIZE = 64 << 10;
    /** What plain TCP reads into: as large as MpaStream's receive buffer, so both read alike. */
    private static final int READ_BUFFER = 1 << 18;
    private static final int QUEUE_DEPTH = 1024;
    private static final int WARM_UP_PINGS = 1000;
    private static final int ROUNDS = 3;
    private static final double BANDWIDTH_TARGET = 0.9;
    private static final double LATENCY_TARGET = 1.25;

    private MpaBench() {
    }

    /** Runs the comparison and prints the table. */
    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        int pings = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        System.out.print(table(run(seconds, pings)));
    }

    /**
     * What {@link #run} measured. Bandwidths in MiB/s, round trips in microseconds; {@code mulpdu} is the MULPDU of
     * the loopback connection (a 64 KiB Write larger than it goes as two FPDUs).
     */
    public record Results(int mulpdu, double plain64k, double mpa64k, double plainLatency, double mpaLatency,
            double plainP99, double mpaP99) {
        /** Every measurement, for checks. */
        public double[] all() {
            return new double[] {plain64k, mpa64k, plainLatency, mpaLatency, plainP99, mpaP99};
        }
    }

    /**
     * Measures bandwidth with 64 KiB writes (plain: 64 KiB socket writes, one writer thread and one reader thread;
     * MPA: 64 KiB RDMA Writes, 32 outstanding) for {@code seconds} each, and the 8-byte ping-pong, {@code pings}
     * measured round trips each after a warm-up; in three alternating rounds when there is time for them.
     */
    public static Results run(double seconds, int pings) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        // plain and MPA take turns, so that both see the same machine: on a shared two-core VM one run differs
        // from the next by more than the two transports differ
        int rounds = seconds >= 1 && pings >= 3 * WARM_UP_PINGS ? ROUNDS : 1;
        double plain64k = 0;
        double mpa64k = 0;
        long[] plainRtt = new long[0];
        long[] mpaRtt = new long[0];
        for (int round = 0; round < rounds; round++) {
            plain64k += plainBandwidth(loopback, seconds / rounds) / rounds;
            plainRtt = concat(plainRtt, plainLatency(loopback, pings / rounds));
            Measured mpa = mpa(loopback, seconds / rounds, pings / rounds);
            mpa64k += mpa.bandwidth() / rounds;
            mpaRtt = concat(mpaRtt, mpa.rtt());
        }
        return new Results(MpaConnectionManager.mulpdu(loopback, false), plain64k, mpa64k,
                RdmaRuns.percentile(plainRtt, 0.5) / 1000.0, RdmaRuns.percentile(mpaRtt, 0.5) / 1000.0,
                RdmaRuns.percentile(plainRtt, 0.99) / 1000.0, RdmaRuns.percentile(mpaRtt, 0.99) / 1000.0);
    }

    private static long[] concat(long[] first, long[] second) {
        long[] both = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    /** The results as a table with ratios. */
    public static String table(Results results) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("%-50s %12s %12s %8s %12s%n", "TCP loopback; MPA: CRC, no markers, MULPDU "
                + results.mulpdu(), "plain TCP", "MPA", "ratio", "target"));
        double bandwidth = results.mpa64k() / results.plain64k();
        out.append(String.format("%-50s %12.1f %12.1f %8.3f %12s%n", "bandwidth MiB/s, 64 KiB writes / Writes",
                results.plain64k(), results.mpa64k(), bandwidth, verdict(bandwidth >= BANDWIDTH_TARGET, ">=",
                BANDWIDTH_TARGET)));
        double median = results.mpaLatency() / results.plainLatency();
        out.append(String.format("%-50s %12.1f %12.1f %8.3f %12s%n", "ping-pong round trip, median us (8 B)",
                results.plainLatency(), results.mpaLatency(), median, verdict(median <= LATENCY_TARGET, "<=",
                LATENCY_TARGET)));
        out.append(String.format("%-50s %12.1f %12.1f %8.3f %12s%n", "ping-pong round trip, p99 us (8 B)",
                results.plainP99(), results.mpaP99(), results.mpaP99() / results.plainP99(), "-"));
        return out.toString();
    }

    private static String verdict(boolean met, String relation, double target) {
        return String.format("%s %.2f %s", relation, target, met ? "ok" : "MISS");
    }

    /** A connected pair of blocking TCP sockets on loopback, Nagle off on both. */
    private static SocketChannel[] pair(InetAddress loopback) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(loopback, 0));
            SocketChannel client = SocketChannel.open(server.getLocalAddress());
            SocketChannel accepted = server.accept();
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            accepted.setOption(StandardSocketOptions.TCP_NODELAY, true);
            return new SocketChannel[] {client, accepted};
        }
    }

    /**
     * One writer thread writes 64 KiB buffers for {@code seconds}, then shuts its output; one reader thread reads
     * until the end of the stream. MiB/s from the first write to the last octet read.
     */
    private static double plainBandwidth(InetAddress loopback, double seconds) throws Exception {
        SocketChannel[] sockets = pair(loopback);
        AtomicLong received = new AtomicLong();
        AtomicLong finished = new AtomicLong();
        AtomicReference<IOException> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        Thread reader = Thread.ofPlatform().name("plain-reader").start(() -> {
            ByteBuffer in = ByteBuffer.allocateDirect(READ_BUFFER);
            long total = 0;
            try {
                int read;
                while ((read = sockets[1].read(in)) >= 0) {
                    total += read;
                    in.clear();
                }
            } catch (IOException e) {
                // counted what arrived
            }
            finished.set(System.nanoTime());
            received.set(total);
        });
        Thread writer = Thread.ofPlatform().name("plain-writer").start(() -> {
            ByteBuffer out = ByteBuffer.allocateDirect(WRITE_SIZE);
            try {
                while (System.nanoTime() < end) {
                    out.clear();
                    while (out.hasRemaining()) {
                        sockets[0].write(out);
                    }
                }
                sockets[0].shutdownOutput();
            } catch (IOException e) {
                failure.set(e);
                try {
                    sockets[1].close(); // the reader stops too
                } catch (IOException ignored) {
                    // failed already
                }
            }
        });
        writer.join();
        reader.join();
        sockets[0].close();
        sockets[1].close();
        if (failure.get() != null) {
            throw failure.get();
        }
        return received.get() / ((finished.get() - start) / 1e9) / (1 << 20);
    }

    /**
     * One thread plays both ends on non-blocking sockets, as the MPA ping-pong does (one thread polling both
     * completion queues): write the ping, spin reading the far socket until its 8 octets are in, write the pong
     * back, spin reading the near socket. Round trips in nanoseconds, after a warm-up.
     */
    private static long[] plainLatency(InetAddress loopback, int pings) throws IOException {
        SocketChannel[] sockets = pair(loopback);
        sockets[0].configureBlocking(false);
        sockets[1].configureBlocking(false);
        ByteBuffer out = ByteBuffer.allocateDirect(LATENCY_MESSAGE);
        ByteBuffer in = ByteBuffer.allocateDirect(LATENCY_MESSAGE);
        long[] rtt = new long[pings];
        for (int i = -Math.min(pings, WARM_UP_PINGS); i < pings; i++) {
            long start = System.nanoTime();
            bounce(sockets[0], sockets[1], out, in);
            bounce(sockets[1], sockets[0], out, in);
            if (i >= 0) {
                rtt[i] = System.nanoTime() - start;
            }
        }
        sockets[0].close();
        sockets[1].close();
        return rtt;
    }

    private static void bounce(SocketChannel from, SocketChannel to, ByteBuffer out, ByteBuffer in)
            throws IOException {
        out.clear();
        while (out.hasRemaining()) {
            from.write(out);
        }
        in.clear();
        while (in.hasRemaining()) {
            if (to.read(in) < 0) {
                throw new IOException("the peer closed the ping-pong connection");
            }
        }
    }

    /** What the MPA side measured: 64 KiB Write MiB/s and the round trips in nanoseconds. */
    private record Measured(double bandwidth, long[] rtt) {
    }

    /** Bandwidth and ping-pong over TCP/MPA: two managers with the default options, on loopback. */
    private static Measured mpa(InetAddress loopback, double seconds, int pings) throws Exception {
        RdmaDevice device = new RdmaDevice("bench");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue initiatorCq = device.createCompletionQueue(4096);
        CompletionQueue responderCq = device.createCompletionQueue(4096);
        QueuePair initiator = pd.createQueuePair(QpAttributes.of(initiatorCq, QUEUE_DEPTH, 1));
        QueuePair responder = pd.createQueuePair(QpAttributes.of(responderCq, QUEUE_DEPTH, 1));
        MemoryRegion sink = pd.register(Arena.ofAuto().allocate(WRITE_SIZE), EnumSet.of(Access.LOCAL_WRITE,
                Access.REMOTE_WRITE));
        MemoryRegion source = pd.register(Arena.ofAuto().allocate(WRITE_SIZE), EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion pongs = pd.register(Arena.ofAuto().allocate((long) QUEUE_DEPTH * LATENCY_MESSAGE),
                EnumSet.of(Access.LOCAL_WRITE));
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        for (int i = 0; i < QUEUE_DEPTH; i++) {
            receive.wrId(i).sge(0, pongs, (long) i * LATENCY_MESSAGE, LATENCY_MESSAGE);
            responder.postReceive(receive);
            initiator.postReceive(receive);
        }
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        try (MpaConnectionManager server = new MpaConnectionManager(MpaOptions.defaults(), loopback);
                MpaConnectionManager client = new MpaConnectionManager(MpaOptions.defaults(), loopback);
                Listener listener = server.listen(new InetSocketAddress(loopback, 0), request -> request.accept(
                        responder, new AcceptOptions(PrivateData.EMPTY, 1, 1)).whenComplete((connection, failure) -> {
                            if (failure != null) {
                                accepted.completeExceptionally(failure);
                            } else {
                                accepted.complete(connection);
                            }
                        }))) {
            client.connect(initiator, listener.address(), ConnectOptions.of(1, 1)).get(10, TimeUnit.SECONDS);
            accepted.get(10, TimeUnit.SECONDS);
            WorkCompletion completion = new WorkCompletion();
            long[] rtt = new long[pings];
            double bandwidth = RdmaRuns.writeBandwidth(initiator, initiatorCq, responderCq, sink, source, WRITE_SIZE,
                    seconds);
            responder.postReceive(receive.wrId(0).sge(0, pongs, 0, LATENCY_MESSAGE)); // for the one the Send took

            SendWorkRequest ping = new SendWorkRequest(1).opcode(WorkOpcode.SEND).sge(0, source, 0, LATENCY_MESSAGE);
            SendWorkRequest pong = new SendWorkRequest(1).opcode(WorkOpcode.SEND).sge(0, source, 0, LATENCY_MESSAGE);
            for (int i = -Math.min(pings, WARM_UP_PINGS); i < pings; i++) {
                long t0 = System.nanoTime();
                initiator.postSend(ping);
                RdmaRuns.awaitReceive(responderCq, completion);
                responder.postSend(pong);
                RdmaRuns.awaitReceive(initiatorCq, completion);
                if (i >= 0) {
                    rtt[i] = System.nanoTime() - t0;
                }
                // both receives consumed: put them back, outside the timed round trip
                int slot = Math.floorMod(i, QUEUE_DEPTH);
                receive.wrId(slot).sge(0, pongs, (long) slot * LATENCY_MESSAGE, LATENCY_MESSAGE);
                responder.postReceive(receive);
                initiator.postReceive(receive);
            }
            initiator.disconnect();
            return new Measured(bandwidth, rtt);
        }
    }
}
