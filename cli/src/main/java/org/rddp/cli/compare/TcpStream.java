package org.rddp.cli.compare;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import org.rddp.cli.PeerException;
import org.rddp.cli.perftest.Arrivals;
import org.rddp.cli.perftest.PerfResult;

/**
 * The TCP socket's transfer in a failover point, as RDDP's reversed {@code send-bw}: the responder's end writes
 * messages of one size for a while, the initiator's reads them, checks each (a sequence number in its first eight
 * octets, in order, and a pattern after it) and notes its arrival ({@link Arrivals}). A sender that has sent for its
 * time closes its output and waits for the receiver to close: every message it wrote arrived.
 */
final class TcpStream {
    /** Octets the receiver reads at once: several messages of a small size, a large one in parts. */
    private static final int READ = 256 << 10;
    /** Octets the sender writes at once, as the TCP baseline's bandwidth sender gathers its messages. */
    private static final int BURST = 128 << 10;
    private static final int SEQUENCE = Long.BYTES;

    private TcpStream() {
    }

    /** The smallest message: its sequence number and one octet of pattern. */
    static final int SMALLEST = SEQUENCE + 1;

    /**
     * Writes messages of {@code size} octets for {@code seconds}, closes its output, waits for the receiver to close.
     */
    static void send(SocketChannel channel, int size, long seconds, Duration timeout) throws IOException {
        int count = Math.max(1, BURST / size);
        ByteBuffer[] messages = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            messages[i] = pattern(ByteBuffer.allocateDirect(size));
        }
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long sequence = 0;
        while (System.nanoTime() - end < 0) {
            for (ByteBuffer message : messages) {
                message.clear();
                message.putLong(0, sequence++);
            }
            while (messages[count - 1].hasRemaining()) {
                channel.write(messages);
            }
        }
        channel.shutdownOutput();
        awaitClose(channel, timeout);
    }

    /**
     * Reads and checks messages of {@code size} octets until the sender closes, each noted in {@code arrivals}; what
     * arrived as perftest's bandwidth result.
     */
    static PerfResult.Bandwidth receive(SocketChannel channel, int size, Arrivals arrivals, Duration timeout)
            throws IOException, PeerException {
        ByteBuffer expected = pattern(ByteBuffer.allocate(size));
        ByteBuffer in = ByteBuffer.allocateDirect(Math.max(READ, size));
        long sequence = 0;
        long begin = 0;
        channel.configureBlocking(false);
        try (Selector selector = Selector.open()) {
            channel.register(selector, SelectionKey.OP_READ);
            while (true) {
                int read = channel.read(in);
                if (read < 0) {
                    break;
                }
                if (read == 0) {
                    if (selector.select(timeout.toMillis()) == 0) {
                        throw new PeerException("nothing from the sender for " + timeout.toSeconds() + " s after "
                                + sequence + " messages");
                    }
                    selector.selectedKeys().clear();
                    continue;
                }
                in.flip();
                while (in.remaining() >= size) {
                    int at = in.position();
                    long seen = in.getLong(at);
                    if (seen != sequence) {
                        throw new PeerException("message " + sequence + " came as message " + seen);
                    }
                    int mismatch = in.slice(at + SEQUENCE, size - SEQUENCE).mismatch(expected.slice(SEQUENCE,
                            size - SEQUENCE));
                    if (mismatch >= 0) {
                        throw new PeerException("data mismatch in message " + sequence + " at offset "
                                + (SEQUENCE + mismatch));
                    }
                    in.position(at + size);
                    if (sequence++ == 0) {
                        begin = System.nanoTime();
                    }
                    arrivals.arrived(size);
                }
                in.compact();
            }
        }
        if (in.position() != 0) {
            throw new PeerException("the sender closed inside message " + sequence);
        }
        channel.close(); // the sender waits for this: everything it wrote arrived
        return PerfResult.Bandwidth.of(size, sequence, System.nanoTime() - begin, 0);
    }

    /** The pattern a message carries after its sequence number: a function of the offset only. */
    private static ByteBuffer pattern(ByteBuffer message) {
        for (int i = SEQUENCE; i < message.capacity(); i++) {
            message.put(i, (byte) (i * 31 + 7));
        }
        return message.clear();
    }

    /** Reads until the peer closes (nothing is expected), at most {@code timeout}. */
    private static void awaitClose(SocketChannel channel, Duration timeout) throws IOException {
        ByteBuffer sink = ByteBuffer.allocate(64);
        channel.configureBlocking(false);
        try (Selector selector = Selector.open()) {
            channel.register(selector, SelectionKey.OP_READ);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (channel.read(sink.clear()) >= 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException("the receiver did not close within " + timeout.toSeconds() + " s");
                }
                selector.select(Math.max(1, left / 1_000_000));
                selector.selectedKeys().clear();
            }
        }
    }
}
