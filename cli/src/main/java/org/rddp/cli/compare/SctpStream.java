package org.rddp.cli.compare;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.rddp.cli.Driver;
import org.rddp.cli.PeerException;
import org.rddp.cli.perftest.Arrivals;
import org.rddp.cli.perftest.Baselines;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpSocket;

/**
 * The SCTP socket's transfer in a failover point, as {@link TcpStream} is the TCP socket's: the responder's end sends
 * messages of one size (or of the largest the association takes, if smaller) in order on one stream for a while, then
 * a message of one octet that says it is done, and waits for the receiver to shut the association down; the
 * initiator's end checks each message (its sequence number in its first eight octets, then a pattern) and notes its
 * arrival ({@link Arrivals}).
 */
final class SctpStream {
    private static final int SEQUENCE = Long.BYTES;
    private static final int STREAM = 1;
    private static final int RECEIVE_BUFFER = 1 << 20;

    private SctpStream() {
    }

    /** Sends messages of {@code size} octets for {@code seconds}, then the end; waits for the receiver's shutdown. */
    static void send(SctpSocket socket, Driver driver, int size, long seconds, Duration timeout) throws IOException {
        Baselines.Waiter waiter = new Baselines.Waiter(socket, driver, Duration.ofSeconds(seconds).plus(timeout), 0);
        MemorySegment out = pattern(Arena.ofAuto().allocate(Math.min(size, socket.maxMessage())));
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long sequence = 0;
        int round = 0;
        while (System.nanoTime() - end < 0) {
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, sequence);
            if (socket.send(out, 0, (int) out.byteSize(), STREAM, DdpSctp.PPID_DDP_SEGMENT, false) > 0) {
                sequence++;
                round = 0;
            } else {
                waiter.await(round++, "room to send");
            }
        }
        for (round = 0; socket.send(out, 0, 1, STREAM, DdpSctp.PPID_DDP_SEGMENT, false) <= 0;) {
            waiter.await(round++, "room to send the end");
        }
        // the receiver shuts down once it has everything
        Baselines.awaitPeerClose(socket, Arena.ofAuto().allocate(64), new SctpSocket.ReceivedMessage(), waiter);
    }

    /**
     * Receives and checks messages until the sender's end, each noted in {@code arrivals}, then shuts the association
     * down; what arrived as perftest's bandwidth result. Nothing for {@code timeout} is a failure.
     */
    static PerfResult.Bandwidth receive(SctpSocket socket, Driver driver, Arrivals arrivals, Duration timeout)
            throws IOException, PeerException {
        Baselines.Waiter waiter = new Baselines.Waiter(socket, driver, Failover.LONGEST.plus(timeout), 0);
        MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
        MemorySegment expected = pattern(Arena.ofAuto().allocate(RECEIVE_BUFFER));
        SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
        long sequence = 0;
        long octets = 0;
        long begin = 0;
        long heard = System.nanoTime();
        for (int round = 0; ; ) {
            int length = socket.receive(in, info);
            if (length == SctpSocket.WOULD_BLOCK) {
                if (System.nanoTime() - heard > timeout.toNanos()) {
                    throw new PeerException("nothing from the sender for " + timeout.toSeconds() + " s after "
                            + sequence + " messages");
                }
                waiter.await(round++, "message " + sequence);
                continue;
            }
            round = 0;
            if (info.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN
                    || info.kind == SctpSocket.ReceivedMessage.SHUTDOWN) {
                throw new PeerException("the association went down after " + sequence + " messages");
            }
            if (info.kind != SctpSocket.ReceivedMessage.DATA) {
                continue; // a path's change, the adaptation indication
            }
            heard = System.nanoTime();
            if (!info.complete) {
                throw new PeerException("message " + sequence + " did not fit " + RECEIVE_BUFFER + " octets");
            }
            if (length == 1) {
                break; // the end
            }
            long seen = length > SEQUENCE ? in.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) : -1;
            if (seen != sequence) {
                throw new PeerException("message " + sequence + " came as message " + seen + " (" + length
                        + " octets)");
            }
            long mismatch = in.asSlice(SEQUENCE, length - SEQUENCE).mismatch(expected.asSlice(SEQUENCE,
                    length - SEQUENCE));
            if (mismatch >= 0) {
                throw new PeerException("data mismatch in message " + sequence + " at offset " + (SEQUENCE + mismatch));
            }
            if (sequence++ == 0) {
                begin = heard;
            }
            octets += length;
            arrivals.arrived(length);
        }
        Baselines.sctpShutdown(socket, driver, timeout);
        int size = sequence == 0 ? 1 : (int) (octets / sequence);
        return PerfResult.Bandwidth.of(size, sequence, System.nanoTime() - begin, 0);
    }

    /** The pattern a message carries after its sequence number: a function of the offset only. */
    private static MemorySegment pattern(MemorySegment message) {
        for (long i = SEQUENCE; i < message.byteSize(); i++) {
            message.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
        return message;
    }
}
