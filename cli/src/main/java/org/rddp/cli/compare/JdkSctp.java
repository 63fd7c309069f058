package org.rddp.cli.compare;

import com.sun.nio.sctp.MessageInfo;
import com.sun.nio.sctp.SctpChannel;
import com.sun.nio.sctp.SctpServerChannel;
import com.sun.nio.sctp.SctpStandardSocketOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import org.rddp.cli.perftest.Baselines;
import org.rddp.cli.Completions;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.sctp.DdpSctp;

/**
 * The JDK's own SCTP socket ({@code com.sun.nio.sctp.SctpChannel}; Netty's SCTP transport wraps it) as a baseline of
 * {@code rddp compare} on a host with kernel SCTP: what a Java program there would use instead of RDDP, next to the
 * project's own FFM socket over the same kernel SCTP. Its ends speak as {@link Baselines}' SCTP ends do. Bandwidth:
 * unordered messages on stream 1 with DDP's payload protocol identifier, each at most {@link #LARGEST_MESSAGE} and
 * what leaves in one packet, then a one-octet acknowledgement. Latency: a ping-pong, each end polling busily for up to
 * {@link Completions#SPIN}, then waiting on a selector. Socket buffers are sized as the kernel backend sizes its
 * own (SCTP has no receive-buffer autotuning), where the JDK lets a program set them: on a connecting channel
 * before it connects, on an accepted one after (a server channel has no buffer options).
 */
final class JdkSctp {
    /** As the kernel backend's own sockets. */
    private static final int SEND_BUFFER = 2 << 20;
    private static final int RECEIVE_BUFFER = 4 << 20;
    /** IPv6 (the JDK's SCTP sockets are IPv6 ones where it can), SCTP common and DATA chunk headers. */
    private static final int PACKET_OVERHEAD = 40 + 12 + 16;
    /**
     * The largest message sent. An accepted association keeps the system's default receive window (the JDK has no
     * buffer options on a server channel), under which messages near 64 KiB go one at a time, each waiting for a
     * delayed SACK: 0.31 MB/s in the VM, where 16 KiB messages move 30 MB/s. So the baseline is what a Java program
     * does best with: messages of at most 16 KiB.
     */
    static final int LARGEST_MESSAGE = 16 << 10;
    private static final int STREAM = 1;

    private JdkSctp() {
    }

    /** Why the JDK's SCTP cannot run here (no kernel SCTP, or no lksctp-tools library), or null when it can. */
    static String unavailable() {
        try (SctpChannel probe = SctpChannel.open()) {
            return null;
        } catch (UnsupportedOperationException | IOException e) {
            return "the JDK's SCTP cannot run here: " + e;
        }
    }

    /** A server channel listening on a free port of {@code bind}. */
    static SctpServerChannel listen(InetAddress bind) throws IOException {
        SctpServerChannel server = SctpServerChannel.open();
        server.bind(new InetSocketAddress(bind, 0));
        return server;
    }

    /** The port {@code server} listens on. */
    static int port(SctpServerChannel server) throws IOException {
        for (SocketAddress address : server.getAllLocalAddresses()) {
            return ((InetSocketAddress) address).getPort();
        }
        throw new IOException("the SCTP server channel has no local address");
    }

    /** Takes the next association within {@code timeout}, its buffers sized; a blocking channel. */
    static SctpChannel accept(SctpServerChannel server, Duration timeout) throws IOException {
        server.configureBlocking(false);
        try (Selector selector = Selector.open()) {
            server.register(selector, SelectionKey.OP_ACCEPT);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                SctpChannel accepted = server.accept();
                if (accepted != null) {
                    accepted.configureBlocking(true);
                    return sized(accepted);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException("no association from the client within " + timeout.toSeconds() + " s");
                }
                selector.select(Math.max(1, left / 1_000_000));
                selector.selectedKeys().clear();
            }
        }
    }

    /** An association to {@code server}, its buffers sized before it is set up. */
    static SctpChannel connect(InetSocketAddress server) throws IOException {
        SctpChannel channel = sized(SctpChannel.open());
        channel.connect(server);
        return channel;
    }

    private static SctpChannel sized(SctpChannel channel) throws IOException {
        channel.setOption(SctpStandardSocketOptions.SO_SNDBUF, SEND_BUFFER);
        channel.setOption(SctpStandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER);
        channel.setOption(SctpStandardSocketOptions.SCTP_NODELAY, true);
        return channel;
    }

    /** The largest message sent towards {@code peer}: one that leaves in one packet, at most 16 KiB. */
    static int largestMessage(InetAddress peer) throws IOException {
        NetworkInterface nic = NetworkInterface.getByInetAddress(peer);
        int mtu = nic == null ? 1500 : nic.getMTU();
        return Math.min(LARGEST_MESSAGE, mtu - PACKET_OVERHEAD);
    }

    /**
     * Bandwidth, the sender's end: {@code iterations} messages' worth of {@code size} octets, then the answer; in
     * bursts bundled as the other SCTP series bundle theirs (Nagle on inside a burst of
     * {@link Baselines#burst} messages, off for its last).
     */
    static PerfResult.Bandwidth send(SctpChannel channel, int size, long iterations, int outstanding)
            throws IOException {
        InetAddress peer = ((InetSocketAddress) channel.getRemoteAddresses().iterator().next()).getAddress();
        ByteBuffer out = ByteBuffer.allocateDirect(Math.min(size, largestMessage(peer)));
        ByteBuffer in = ByteBuffer.allocateDirect(64);
        MessageInfo info = message();
        long total = (long) size * iterations;
        int burst = Baselines.burst(out.capacity(), outstanding);
        boolean bundling = false;
        long start = System.nanoTime();
        for (long sent = 0, messages = 0; sent < total; messages++) {
            int length = (int) Math.min(out.capacity(), total - sent);
            boolean bundle = Baselines.bundles(burst, messages, sent + length >= total);
            if (bundling != bundle) {
                channel.setOption(SctpStandardSocketOptions.SCTP_NODELAY, !bundle);
                bundling = bundle;
            }
            out.clear().limit(length);
            sent += channel.send(out, info);
        }
        receive(channel, in, 1, "the receiver's acknowledgement");
        return PerfResult.Bandwidth.of(size, iterations, System.nanoTime() - start, 0);
    }

    /** Bandwidth, the receiver's end: receives {@code total} octets, then answers with one. */
    static void sink(SctpChannel channel, long total) throws IOException {
        receive(channel, ByteBuffer.allocateDirect(Baselines.SCTP_MESSAGE), total, total + " octets");
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        channel.send(ack, message());
    }

    /** Latency, the pinger's end: {@code iterations} round trips of one {@code size}-octet message. */
    static PerfResult.Latency ping(SctpChannel channel, int size, int iterations, Duration timeout)
            throws IOException {
        long[] rtt = new long[iterations];
        try (Busy busy = new Busy(channel, timeout)) {
            ByteBuffer out = ByteBuffer.allocateDirect(size);
            ByteBuffer in = ByteBuffer.allocateDirect(Math.max(size, 64));
            for (int i = 0; i < iterations; i++) {
                long start = System.nanoTime();
                busy.send(out.clear());
                busy.receive(in, size, "the echo of message " + i);
                rtt[i] = System.nanoTime() - start;
            }
        }
        return PerfResult.Latency.of(size, rtt, 2);
    }

    /** Latency, the echo's end: sends each of {@code iterations} messages of {@code size} octets back. */
    static void echo(SctpChannel channel, int size, int iterations, Duration timeout) throws IOException {
        try (Busy busy = new Busy(channel, timeout)) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(size, 64));
            for (int i = 0; i < iterations; i++) {
                busy.receive(buffer, size, "message " + i);
                busy.send(buffer.clear().limit(size));
            }
        }
    }

    private static MessageInfo message() {
        return MessageInfo.createOutgoing(null, STREAM).payloadProtocolID(DdpSctp.PPID_DDP_SEGMENT).unordered(true);
    }

    /** Receives data until {@code total} octets came, blocking; notifications pass. */
    private static void receive(SctpChannel channel, ByteBuffer in, long total, String what) throws IOException {
        for (long received = 0; received < total;) {
            MessageInfo got = channel.receive(in.clear(), null, null);
            if (got == null || got.bytes() < 0) {
                throw new IOException("the association ended after " + received + " of " + total + " octets, "
                        + "waiting for " + what);
            }
            received += got.bytes();
        }
    }

    /** A channel made non-blocking for a latency run, waiting as {@link Baselines.Busy} does. */
    private static final class Busy implements AutoCloseable {
        private final SctpChannel channel;
        private final Baselines.Busy busy;
        private final MessageInfo info = message();

        Busy(SctpChannel channel, Duration timeout) throws IOException {
            this.channel = channel;
            this.busy = new Baselines.Busy(channel, timeout);
        }

        void send(ByteBuffer buffer) throws IOException {
            long start = System.nanoTime();
            while (channel.send(buffer, info) == 0) {
                busy.await(start, SelectionKey.OP_WRITE, "room to send");
            }
        }

        void receive(ByteBuffer buffer, int size, String what) throws IOException {
            long start = System.nanoTime();
            for (int received = 0; received < size;) {
                MessageInfo got = channel.receive(buffer.clear(), null, null);
                if (got == null) {
                    busy.await(start, SelectionKey.OP_READ, what);
                } else if (got.bytes() < 0) {
                    throw new IOException("the association ended before " + what);
                } else {
                    received += got.bytes();
                }
            }
        }

        @Override
        public void close() throws IOException {
            busy.close();
        }
    }
}
