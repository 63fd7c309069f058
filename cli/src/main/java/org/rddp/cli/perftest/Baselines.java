package org.rddp.cli.perftest;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.rddp.cli.Completions;
import org.rddp.cli.Driver;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpSocket;

/**
 * The raw baselines RDDP is compared with: a plain TCP socket (for RDDP over MPA) and a raw SCTP socket of the same
 * backend (for RDDP over SCTP), each as the two ends of one connection, which {@code compare}'s {@code CompareEnds}
 * runs in one process or in two.
 *
 * <p>Bandwidth: the sender sends {@code iterations} messages of {@code size} octets; the receiver reads them all and
 * answers the last octet with a one-octet acknowledgement. The time runs at the sender, from the first send to that
 * acknowledgement: the time to the last octet plus one small one-way trip, measured on one clock, so the same
 * between processes and hosts as in one process. Latency: the pinger sends {@code size} octets, the echo sends them
 * back; half of each round trip, as perftest reports Send latency. Both ends wait as RDDP's latency runs wait
 * ({@link Completions#spin}): busy for up to {@link Completions#SPIN}, then asleep; a baseline that slept on every
 * message would measure thread wake-ups where RDDP's side measures the transport.
 */
public final class Baselines {
    /** The largest raw SCTP message sent: larger sizes go as several (usrsctp's default send buffer is 256 KiB). */
    public static final int SCTP_MESSAGE = 64 << 10;
    private static final int RECEIVE_BUFFER = 1 << 20;
    /** The octets a baseline's sender hands its socket together, at most: iperf3's default block. */
    static final int BURST = 128 << 10;
    /** Polls of a socket before its thread parks until the socket's ready hook wakes it. */
    private static final int SPINS = Completions.SPINS;
    /** The longest sleep of a waiting baseline before it looks at its timeout again. */
    private static final long NAP_MILLIS = 200;

    private Baselines() {
    }

    /** As MPA's own socket: no Nagle delay. */
    public static SocketChannel noDelay(SocketChannel channel) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        return channel;
    }

    // -------------------------------------------------------------------------------------------------------------
    // TCP

    /**
     * TCP bandwidth, the sender's end: {@code iterations} messages of {@code size} octets, then the acknowledgement.
     * The sender gathers the messages into writes of about {@value #BURST} octets (iperf3's default block), but
     * never more messages in one than the {@code outstanding} RDDP's sender keeps posted: RDDP's stream hands its
     * socket what was posted between two polls in one {@code writev}, so a socket written message by message would
     * be measured on its system calls where RDDP is measured on its transport.
     */
    public static PerfResult.Bandwidth tcpSend(SocketChannel channel, int size, long iterations, int outstanding)
            throws IOException {
        ByteBuffer out = ByteBuffer.allocateDirect(size);
        ByteBuffer[] window = new ByteBuffer[(int) Math.max(1, Math.min(burst(size, outstanding), iterations))];
        for (int i = 0; i < window.length; i++) {
            window[i] = out.duplicate(); // the same octets each time, as RDDP's sender posts one buffer again
        }
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        long start = System.nanoTime();
        for (long sent = 0; sent < iterations;) {
            int count = (int) Math.min(window.length, iterations - sent);
            for (int i = 0; i < count; i++) {
                window[i].clear();
            }
            while (window[count - 1].hasRemaining()) {
                channel.write(window, 0, count);
            }
            sent += count;
        }
        readFully(channel, ack, "the receiver's acknowledgement");
        return PerfResult.Bandwidth.of(size, iterations, System.nanoTime() - start, 0);
    }

    /**
     * The messages of {@code size} octets a baseline's sender hands its socket together (TCP: in one write; SCTP: as
     * one burst the stack may bundle), {@code outstanding} at most.
     */
    public static int burst(int size, int outstanding) {
        return Math.max(1, Math.min(outstanding, BURST / size));
    }

    /**
     * Whether the SCTP stack bundles the {@code message}-th message (from 0) of a send in bursts of {@code burst}:
     * every message of a burst but its last, which takes what was held out with it ({@code last}: the send's last).
     */
    public static boolean bundles(int burst, long message, boolean last) {
        return burst > 1 && !last && (message + 1) % burst != 0;
    }

    /** TCP bandwidth, the receiver's end: reads {@code total} octets, then acknowledges the last. */
    public static void tcpSink(SocketChannel channel, long total) throws IOException {
        ByteBuffer in = ByteBuffer.allocateDirect(RECEIVE_BUFFER);
        for (long received = 0; received < total;) {
            in.clear().limit((int) Math.min(in.capacity(), total - received));
            int read = channel.read(in);
            if (read < 0) {
                throw new IOException("the sender closed after " + received + " of " + total + " octets");
            }
            received += read;
        }
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        while (ack.hasRemaining()) {
            channel.write(ack);
        }
    }

    /** TCP latency, the pinger's end: {@code iterations} round trips of {@code size} octets. */
    public static PerfResult.Latency tcpPing(SocketChannel channel, int size, int iterations, Duration timeout)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        long[] rtt = new long[iterations];
        try (BusyChannel busy = new BusyChannel(channel, timeout, Completions.SPIN)) {
            for (int i = 0; i < iterations; i++) {
                long start = System.nanoTime();
                busy.write(buffer.clear());
                busy.read(buffer.clear(), "the echo of message " + i);
                rtt[i] = System.nanoTime() - start;
            }
        }
        return PerfResult.Latency.of(size, rtt, 2);
    }

    /**
     * TCP at an offered load, the sender's end, as RDDP's {@code send-lat --rate}: a message of {@code size} octets
     * falls due every 1/{@code rate} s and is written then, whatever the echoes ({@link #tcpEcho}) do, as long as
     * fewer than {@code window} are unanswered; each round trip is timed from the write (from when it fell due, if the
     * window held it back) to the echo's last octet. Between messages it waits on a selector, woken by the echo or
     * when the next message falls due; a message due within a millisecond (the selector's grain) it waits for busily,
     * as RDDP's {@code send-lat --rate} does. Each answer is noted in {@code answers} with when its message was
     * written, unless that is null.
     */
    public static PerfResult.Latency tcpLoad(SocketChannel channel, int size, int iterations, int rate, int window,
            Duration timeout, Arrivals answers) throws IOException {
        ByteBuffer out = ByteBuffer.allocateDirect(size);
        ByteBuffer in = ByteBuffer.allocateDirect(RECEIVE_BUFFER);
        long[] posted = new long[iterations];
        long[] took = new long[iterations];
        double period = 1e9 / rate;
        long start = System.nanoTime();
        long moved = start;
        long echoed = 0;
        int sent = 0;
        boolean writing = false;
        boolean held = false;
        channel.configureBlocking(false);
        try (Selector selector = Selector.open()) {
            SelectionKey key = channel.register(selector, 0);
            for (int received = 0; received < iterations;) {
                long now = System.nanoTime();
                boolean progress = false;
                while (true) {
                    if (writing) {
                        progress |= channel.write(out) > 0;
                        if (out.hasRemaining()) {
                            break;
                        }
                        writing = false;
                        sent++;
                    }
                    long due = start + (long) (sent * period);
                    if (sent == iterations || now - due < 0) {
                        held = false;
                        break;
                    }
                    if (sent - received == window) {
                        held = true;
                        break;
                    }
                    posted[sent] = held ? due : now;
                    out.clear();
                    writing = true;
                }
                int read = channel.read(in.clear());
                if (read < 0) {
                    throw new IOException("the peer closed the connection after " + received + " echoes");
                }
                echoed += read;
                now = System.nanoTime();
                for (; received < iterations && echoed >= (long) (received + 1) * size; received++) {
                    took[received] = now - posted[received];
                    if (answers != null) {
                        answers.answered(size, posted[received]);
                    }
                }
                if (read > 0 || progress) {
                    moved = now;
                    continue;
                }
                if (now - moved > timeout.toNanos()) {
                    throw new IOException("no echo within " + timeout.toSeconds() + " s after " + received);
                }
                // the selector waits in milliseconds: a message due sooner is waited for busily
                long untilDue = writing || sent == iterations || sent - received == window ? timeout.toNanos()
                        : start + (long) (sent * period) - now;
                if (untilDue < 1_000_000) {
                    Thread.onSpinWait();
                    continue;
                }
                key.interestOps(SelectionKey.OP_READ | (writing ? SelectionKey.OP_WRITE : 0));
                selector.select(Math.min(NAP_MILLIS, untilDue / 1_000_000));
                selector.selectedKeys().clear();
                key.interestOps(0);
            }
            key.cancel();
        } finally {
            channel.configureBlocking(true);
        }
        return PerfResult.Latency.of(size, took, 1);
    }

    /** TCP latency, the echo's end: sends each of {@code iterations} messages of {@code size} octets back. */
    public static void tcpEcho(SocketChannel channel, int size, int iterations, Duration timeout) throws IOException {
        tcpEcho(channel, size, iterations, timeout, Completions.SPIN);
    }

    /**
     * {@link #tcpEcho(SocketChannel, int, int, Duration)}, polling busily for {@code spin} nanoseconds before each
     * wait on the selector: 0 for the echo of a load ({@link #tcpLoad}), which sleeps between messages as RDDP's does.
     */
    public static void tcpEcho(SocketChannel channel, int size, int iterations, Duration timeout, long spin)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        try (BusyChannel busy = new BusyChannel(channel, timeout, spin)) {
            for (int i = 0; i < iterations; i++) {
                busy.read(buffer.clear(), "message " + i);
                busy.write(buffer.flip());
            }
        }
    }

    /**
     * A TCP connection made non-blocking for a latency run: each read or write polls busily for up to
     * {@link Completions#SPIN}, then waits on a selector ({@link Busy}); gives up after the timeout.
     */
    private static final class BusyChannel implements AutoCloseable {
        private final SocketChannel channel;
        private final Busy busy;

        BusyChannel(SocketChannel channel, Duration timeout, long spin) throws IOException {
            this.channel = channel;
            this.busy = new Busy(channel, timeout, spin);
        }

        void read(ByteBuffer buffer, String what) throws IOException {
            long start = System.nanoTime();
            while (buffer.hasRemaining()) {
                int read = channel.read(buffer);
                if (read < 0) {
                    throw new IOException("the peer closed the connection before " + what);
                }
                if (read == 0) {
                    busy.await(start, SelectionKey.OP_READ, what);
                }
            }
        }

        void write(ByteBuffer buffer) throws IOException {
            long start = System.nanoTime();
            while (buffer.hasRemaining()) {
                if (channel.write(buffer) == 0) {
                    busy.await(start, SelectionKey.OP_WRITE, "room to send");
                }
            }
        }

        @Override
        public void close() throws IOException {
            busy.close();
        }
    }

    /**
     * How a baseline's end waits on a channel made non-blocking for a latency run: busily for up to
     * {@link Completions#SPIN} from the start of an operation, then on a selector; gives up after the timeout. The
     * channel blocks again when this is closed.
     */
    public static final class Busy implements AutoCloseable {
        private final SelectableChannel channel;
        private final Selector selector;
        private final SelectionKey key;
        private final long timeout;
        private final long spin;

        public Busy(SelectableChannel channel, Duration timeout) throws IOException {
            this(channel, timeout, Completions.SPIN);
        }

        /** Polling busily for {@code spin} nanoseconds of each operation before it waits on the selector. */
        public Busy(SelectableChannel channel, Duration timeout, long spin) throws IOException {
            this.channel = channel;
            this.timeout = timeout.toNanos();
            this.spin = spin;
            channel.configureBlocking(false);
            selector = Selector.open();
            key = channel.register(selector, 0);
        }

        /** Waits a little for {@code interest} on an operation that began at {@code start} and found nothing. */
        public void await(long start, int interest, String what) throws IOException {
            long waited = System.nanoTime() - start;
            if (waited < spin) {
                Completions.pause(waited);
                return;
            }
            if (waited > timeout) {
                throw new IOException("timed out waiting for " + what);
            }
            key.interestOps(interest);
            selector.select(NAP_MILLIS);
            selector.selectedKeys().clear();
            key.interestOps(0);
        }

        @Override
        public void close() throws IOException {
            key.cancel();
            selector.close();
            channel.configureBlocking(true);
        }
    }

    private static void readFully(SocketChannel channel, ByteBuffer buffer, String what) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("the peer closed the connection before " + what);
            }
        }
    }

    // -------------------------------------------------------------------------------------------------------------
    // SCTP

    /**
     * Raw SCTP bandwidth, the sender's end: unordered messages of at most the size, or of the largest message that
     * leaves in one packet (as RDDP's segments do: a larger one would be fragmented, and then RDDP, which cuts its
     * segments to fit, would be measured against a socket made to fragment), then the acknowledgement. The messages
     * go in bursts of up to {@value #BURST} octets, never more than the {@code outstanding} RDDP's sender keeps
     * posted, the stack bundling each burst's messages as it does RDDP's ({@link SctpSocket#bundle}).
     */
    public static PerfResult.Bandwidth sctpSend(SctpSocket socket, Driver driver, int size, long iterations,
            int outstanding, Duration timeout) throws IOException {
        Waiter waiter = new Waiter(socket, driver, timeout, 0);
        MemorySegment out = Arena.ofAuto().allocate(Math.min(size, Math.min(socket.maxMessage(), SCTP_MESSAGE)));
        MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
        SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
        long start = System.nanoTime();
        send(socket, out, size * iterations, waiter, burst((int) out.byteSize(), outstanding));
        receive(socket, in, info, 1, waiter, "the receiver's acknowledgement");
        return PerfResult.Bandwidth.of(size, iterations, System.nanoTime() - start, 0);
    }

    /** Raw SCTP bandwidth, the receiver's end: receives {@code total} octets, then acknowledges the last. */
    public static void sctpSink(SctpSocket socket, Driver driver, long total, Duration timeout) throws IOException {
        Waiter waiter = new Waiter(socket, driver, timeout, 0);
        MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
        SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
        receive(socket, in, info, total, waiter, total + " octets");
        send(socket, Arena.ofAuto().allocate(1), 1, waiter, 1);
        awaitPeerClose(socket, in, info, waiter);
    }

    /** Raw SCTP latency, the pinger's end: {@code iterations} round trips of one {@code size}-octet message. */
    public static PerfResult.Latency sctpPing(SctpSocket socket, Driver driver, int size, int iterations,
            Duration timeout) throws IOException {
        Waiter waiter = new Waiter(socket, driver, timeout, Completions.SPIN);
        MemorySegment out = Arena.ofAuto().allocate(size);
        MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
        SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
        long[] rtt = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long start = System.nanoTime();
            send(socket, out, size, waiter, 1);
            receive(socket, in, info, size, waiter, "the echo of message " + i);
            rtt[i] = System.nanoTime() - start;
        }
        return PerfResult.Latency.of(size, rtt, 2);
    }

    /** Raw SCTP latency, the echo's end: sends each of {@code iterations} messages of {@code size} octets back. */
    public static void sctpEcho(SctpSocket socket, Driver driver, int size, int iterations, Duration timeout)
            throws IOException {
        Waiter waiter = new Waiter(socket, driver, timeout, Completions.SPIN);
        MemorySegment out = Arena.ofAuto().allocate(size);
        MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
        SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
        for (int i = 0; i < iterations; i++) {
            receive(socket, in, info, size, waiter, "message " + i);
            send(socket, out, size, waiter, 1);
        }
        awaitPeerClose(socket, in, info, waiter);
    }

    /**
     * Ends the client's association gracefully and waits, driving its loop, until it is down: a user-space stack
     * sends its SHUTDOWN only once everything it sent is acknowledged, and it reads the acknowledgements through this
     * end's loop. A client that closed and stopped its loop at once left, under loss, a last data chunk whose SACK was
     * lost unacknowledged for ever, its SHUTDOWN never sent, and the peer waiting for it until its timeout.
     */
    public static void sctpShutdown(SctpSocket socket, Driver driver, Duration timeout) throws IOException {
        Waiter waiter = new Waiter(socket, driver, timeout, 0);
        MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
        SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
        socket.shutdown();
        for (int round = 0; ; ) {
            int length;
            try {
                length = socket.receive(in, info);
            } catch (IOException e) {
                return; // a backend whose stack finishes the shutdown itself (the kernel's) closed the socket
            }
            if (length == SctpSocket.WOULD_BLOCK) {
                waiter.await(round++, "the association's shutdown");
            } else if (info.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN) {
                return;
            }
        }
    }

    /**
     * Waits for the peer to shut the association down, which it does once it has everything: what was sent last
     * may still be queued in a user-space stack (many packets, on a small path MTU), and only this end's loop, which
     * stops with it, would send it.
     */
    public static void awaitPeerClose(SctpSocket socket, MemorySegment in, SctpSocket.ReceivedMessage info,
            Waiter waiter) throws IOException {
        for (int round = 0; ; ) {
            int length = socket.receive(in, info);
            if (length == SctpSocket.WOULD_BLOCK) {
                waiter.await(round++, "the peer's end of the association");
            } else if (info.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN
                    || info.kind == SctpSocket.ReceivedMessage.SHUTDOWN) {
                return;
            }
        }
    }

    /**
     * Sends {@code total} octets as messages of at most the size of {@code out}, in bursts of {@code burst} messages:
     * the stack bundles a burst's messages but its last, which takes them out with it.
     */
    private static void send(SctpSocket socket, MemorySegment out, long total, Waiter waiter, int burst)
            throws IOException {
        int round = 0;
        boolean bundling = false;
        long messages = 0;
        for (long sent = 0; sent < total;) {
            int length = (int) Math.min(out.byteSize(), total - sent);
            boolean bundle = bundles(burst, messages, sent + length >= total);
            if (bundling != bundle) {
                socket.bundle(bundle);
                bundling = bundle;
            }
            if (socket.send(out, 0, length, 1, DdpSctp.PPID_DDP_SEGMENT, true) > 0) {
                sent += length;
                messages++;
                round = 0;
            } else {
                waiter.await(round++, "room to send");
            }
        }
    }

    /** Receives data messages until {@code total} octets came; notifications other than a lost association pass. */
    private static void receive(SctpSocket socket, MemorySegment in, SctpSocket.ReceivedMessage info, long total,
            Waiter waiter, String what) throws IOException {
        int round = 0;
        for (long received = 0; received < total;) {
            int length = socket.receive(in, info);
            if (length == SctpSocket.WOULD_BLOCK) {
                waiter.await(round++, what);
            } else if (info.kind == SctpSocket.ReceivedMessage.DATA) {
                received += length;
                round = 0;
            } else if (info.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN
                    || info.kind == SctpSocket.ReceivedMessage.SHUTDOWN) {
                throw new IOException("the association went down after " + received + " of " + total
                        + " octets, waiting for " + what);
            }
        }
    }

    /**
     * How a thread waits on a non-blocking SCTP socket, as RDDP's ends wait: polls it for a while (a message is seen
     * as soon as the stack queues it: {@link #SPINS} polls, or for {@code spin} nanoseconds if that is longer), each
     * poll running the socket's manual loop (which reads its UDP socket), then blocks in that loop's poller (or, on a
     * loop of its own thread, parks until the socket's ready hook wakes it); gives up after the timeout.
     */
    public static final class Waiter {
        private final Driver driver;
        private final long deadline;
        private final long spin;
        private long spinning;

        /** For {@code socket}, driven through {@code driver}, for {@code timeout} at most; spinning {@code spin} ns. */
        public Waiter(SctpSocket socket, Driver driver, Duration timeout, long spin) {
            this.driver = driver;
            if (driver.loop() == null) {
                Thread owner = Thread.currentThread();
                socket.onReady(() -> LockSupport.unpark(owner));
            }
            deadline = System.nanoTime() + timeout.toNanos();
            this.spin = spin;
        }

        /** Waits a little for {@code what}, the {@code round}th time in a row (0: the first). */
        public void await(int round, String what) throws IOException {
            if (round == 0) {
                spinning = System.nanoTime();
            }
            long spun = System.nanoTime() - spinning;
            if (round < SPINS || spun < spin) {
                driver.spin();
                if (spin > 0) {
                    Completions.pause(spun); // a latency run's wait: it yields once its answer is late
                }
                return;
            }
            driver.nap(1_000_000); // woken by the socket (its loop's poller, or its ready hook)
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("timed out waiting for " + what);
            }
        }
    }
}
