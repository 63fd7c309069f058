package org.rddp.cli.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.rddp.cli.PeerException;
import org.rddp.work.WorkOpcode;

/**
 * What rdma-core's perftest (ib_write_bw and friends, run with {@code -R}) puts on its rdma_cm connections, so that
 * {@code rddp write-bw} and {@code ib_write_bw -R} are each other's peers. Checked against perftest 4.5-0.17
 * (protocol version "6.06").
 *
 * <p>A run uses two kinds of connections to the same port: first a control connection carrying strict ping-pong
 * Sends of at most {@value #MESSAGE} octets (the client sends first; each side keeps one receive posted), then one
 * data connection per queue pair. On the control connection: the version (16 octets), the page size and the cache
 * line size (big-endian 32-bit, each side uses the larger), the MTU (2 octets of text), a handshake, [the data
 * connections], a handshake, and then, per test, exchanges of {@link Dest} (the peer's buffer) and handshakes, the
 * run, and for Write and Read bandwidth the client's results (five 8-octet big-endian numbers) for the server to
 * print. Sizes and iteration counts are not exchanged: both sides are given the same options.
 */
public final class Perftest {
    /** perftest's port. */
    static final int DEFAULT_PORT = 18515;
    /** The version this side announces: perftest 4.5's. */
    static final String VERSION = "6.06";
    /** The oldest version perftest talks to. */
    static final double OLDEST_VERSION = 5.70;
    /** Octets of the version message. */
    static final int VERSION_LENGTH = 16;
    /** Octets of a control receive: {@code sizeof(struct pingpong_dest)}. */
    static final int MESSAGE = 56;
    /** The page size perftest cycles small messages through. */
    static final int CYCLE_BUFFER = 4096;
    /** The cache line size perftest aligns to. */
    static final int CACHE_LINE = 64;
    /** The MTU message: IBV_MTU_1024's enum value as text (meaningless on iWARP). */
    static final byte[] MTU = {'3', 0};
    /** The largest size of {@code -a}: 2^23. */
    public static final int MAX_SIZE = 1 << 23;
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Perftest() {
    }

    /** The six tests, with perftest's defaults. */
    public enum Test {
        WRITE_BW(WorkOpcode.RDMA_WRITE, true, 5000),
        READ_BW(WorkOpcode.RDMA_READ, true, 1000),
        SEND_BW(WorkOpcode.SEND, true, 1000),
        WRITE_LAT(WorkOpcode.RDMA_WRITE, false, 1000),
        READ_LAT(WorkOpcode.RDMA_READ, false, 1000),
        SEND_LAT(WorkOpcode.SEND, false, 1000);

        final WorkOpcode opcode;
        final boolean bandwidth;
        final int defaultIterations;

        Test(WorkOpcode opcode, boolean bandwidth, int defaultIterations) {
            this.opcode = opcode;
            this.bandwidth = bandwidth;
            this.defaultIterations = defaultIterations;
        }

        /** The command's name: write-bw, send-lat, ... */
        String command() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** perftest's title: "RDMA_Write BW Test", "Send Latency Test", ... */
        String title() {
            String verb = switch (opcode) {
                case RDMA_WRITE -> "RDMA_Write";
                case RDMA_READ -> "RDMA_Read";
                default -> "Send";
            };
            return verb + (bandwidth ? " BW Test" : " Latency Test");
        }

        /** perftest's default size: 64 KiB for bandwidth, 2 octets for latency. */
        int defaultSize() {
            return bandwidth ? 1 << 16 : 2;
        }

        /** perftest's default send queue depth. */
        public int defaultTxDepth() {
            return bandwidth ? 128 : 1;
        }

        /** perftest's default receive depth: 512 for Sends, 1 otherwise. */
        public int defaultRxDepth() {
            return opcode == WorkOpcode.SEND ? 512 : 1;
        }

        /** Half a round trip for Write and Send ping-pong, the whole Read for Read. */
        int rttFactor() {
            return opcode == WorkOpcode.RDMA_READ ? 1 : 2;
        }
    }

    /**
     * {@code struct pingpong_dest} as perftest sends it: big-endian fields {lid, out_reads, qpn, psn, rkey, (4 octets
     * of padding), vaddr, gid[16], srqn, gid_index}. Over rdma_cm only rkey and vaddr mean anything.
     */
    record Dest(int outReads, int qpn, int psn, int rkey, long vaddr) {
        static final Dest ZERO = new Dest(0, 0, 0, 0, 0);

        byte[] encode() {
            MemorySegment message = MemorySegment.ofArray(new byte[MESSAGE]);
            message.set(INT, 4, outReads);
            message.set(INT, 8, qpn);
            message.set(INT, 12, psn);
            message.set(INT, 16, rkey);
            message.set(LONG, 24, vaddr);
            message.set(INT, 52, 0); // gid_index: perftest prints a GID line unless it is -1; 0 as on iWARP
            return message.toArray(ValueLayout.JAVA_BYTE);
        }

        /** The peer's buffer, from its message; one too short for the fields is refused. */
        static Dest decode(byte[] octets) throws PeerException {
            if (octets.length < 32) {
                throw new PeerException("the peer's buffer message has " + octets.length + " octets, not " + MESSAGE);
            }
            return decode(MemorySegment.ofArray(octets));
        }

        static Dest decode(MemorySegment message) {
            return new Dest(message.get(INT, 4), message.get(INT, 8), message.get(INT, 12), message.get(INT, 16),
                    message.get(LONG, 24));
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "QPN %#08x PSN %#08x OUT %#04x RKey %#08x VAddr %#016x", qpn, psn,
                    outReads, rkey, vaddr);
        }
    }

    /** The version message: "6.06", NUL padded to 16 octets. */
    static byte[] version() {
        byte[] message = new byte[VERSION_LENGTH];
        byte[] text = VERSION.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, message, 0, text.length);
        return message;
    }

    /** The peer's version, from its message (text up to the first NUL). */
    static String version(byte[] message) {
        int end = 0;
        while (end < message.length && message[end] != 0) {
            end++;
        }
        return new String(message, 0, end, StandardCharsets.US_ASCII);
    }

    /** A 32-bit big-endian number as a message. */
    static byte[] word(int value) {
        byte[] message = new byte[4];
        MemorySegment.ofArray(message).set(INT, 0, value);
        return message;
    }

    /** The largest page (cycle buffer) a peer may ask for: 1 MiB. */
    static final int LARGEST_PAGE = 1 << 20;
    /** The largest cache line a peer may ask for. */
    static final int LARGEST_CACHE_LINE = 4096;

    /** Checks the peer's version message (text up to the first NUL): perftest's, {@link #OLDEST_VERSION} or newer. */
    static String checkedVersion(byte[] message) throws PeerException {
        String version = version(message);
        double number;
        try {
            number = Double.parseDouble(version);
        } catch (NumberFormatException e) {
            throw new PeerException("the peer's version is '" + version + "': not perftest's");
        }
        if (!(number >= OLDEST_VERSION)) {
            throw new PeerException("the peer speaks perftest " + version + ", older than " + OLDEST_VERSION);
        }
        return version;
    }

    /**
     * The larger of this side's page size or cache line ({@code ours}) and the peer's, in its message; the peer's must
     * be a power of two up to {@code most}: it sizes the buffers this side registers.
     */
    static int agreed(int ours, byte[] message, int most, String what) throws PeerException {
        if (message.length < 4) {
            throw new PeerException("the peer's " + what + " came in " + message.length + " octets, not 4");
        }
        int theirs = word(message);
        if (theirs < 1 || theirs > most || Integer.bitCount(theirs) != 1) {
            throw new PeerException("the peer's " + what + " is " + Integer.toUnsignedString(theirs)
                    + ": not a power of two up to " + most);
        }
        return Math.max(ours, theirs);
    }

    /** The 32-bit big-endian number in a message. */
    static int word(byte[] message) {
        return MemorySegment.ofArray(message).get(INT, 0);
    }

    /** A 64-bit big-endian number as a message. */
    static byte[] quad(long value) {
        byte[] message = new byte[8];
        MemorySegment.ofArray(message).set(LONG, 0, value);
        return message;
    }

    /** The 64-bit big-endian number in a message. */
    static long quad(byte[] message) {
        return MemorySegment.ofArray(message).get(LONG, 0);
    }

    /** A big-endian double as a message (perftest byte-swaps its doubles). */
    static byte[] real(double value) {
        return quad(Double.doubleToRawLongBits(value));
    }

    /** The big-endian double in a message. */
    static double real(byte[] message) {
        return Double.longBitsToDouble(quad(message));
    }

    /** perftest's INC: {@code size} rounded up to the cache line, at least one line. */
    static int inc(int size, int cacheLine) {
        return size > cacheLine ? (size + cacheLine - 1) / cacheLine * cacheLine : cacheLine;
    }

    /** perftest's BUFF_SIZE: the size, at least the cycle buffer. */
    static int buffSize(int size, int cycle) {
        return Math.max(size, cycle);
    }
}
