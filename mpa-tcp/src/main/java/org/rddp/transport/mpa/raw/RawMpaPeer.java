package org.rddp.transport.mpa.raw;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.zip.CRC32C;
import org.rddp.mpa.MpaFpdu;
import org.rddp.mpa.MpaFramer;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.wire.MalformedFrameException;

/**
 * A hand-driven MPA peer on a plain TCP socket, for connection-setup tests and for the session-control interop
 * checks: it writes whatever startup frames or FPDUs it is given, well formed or not, and reads back what the other
 * side sends, octet for octet. Markers are never used in either direction.
 */
public final class RawMpaPeer implements AutoCloseable {
    /** How long a read waits unless told otherwise. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private RawMpaPeer(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) timeout.toMillis());
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** A startup frame as it came off the wire, with the octets a decoder would not show (Res bits). */
    public record Frame(byte[] octets) {
        /** The flags octet (M, C, R, S and the reserved bits). */
        public int flags() {
            return octets[MpaStartupFrame.FLAGS_OFFSET] & 0xFF;
        }

        /** Rev. */
        public int revision() {
            return octets[MpaStartupFrame.REVISION_OFFSET] & 0xFF;
        }

        /** PD_Length. */
        public int pdLength() {
            return ByteBuffer.wrap(octets).getShort(MpaStartupFrame.PD_LENGTH_OFFSET) & 0xFFFF;
        }

        /** Whether the flag {@code mask} is set. */
        public boolean flag(int mask) {
            return (flags() & mask) != 0;
        }

        /** The frame decoded and checked as {@code kind}. */
        public MpaStartupFrame decode(MpaStartupFrame.Kind kind) throws MalformedFrameException {
            return MpaStartupFrame.decode(ByteBuffer.wrap(octets), kind);
        }
    }

    /** A listening socket that hands out raw peers. */
    public static final class Server implements AutoCloseable {
        private final ServerSocket server;
        private final Duration timeout;

        /** Listens on an ephemeral loopback port; accepts and reads wait {@link #TIMEOUT}. */
        public Server() throws IOException {
            this(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), TIMEOUT, TIMEOUT);
        }

        /**
         * Listens at {@code local}.
         *
         * @param accept  how long {@link #accept} waits for a connection
         * @param timeout how long reads of the peers it hands out wait
         */
        public Server(InetSocketAddress local, Duration accept, Duration timeout) throws IOException {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(local, 16);
            server.setSoTimeout((int) accept.toMillis());
            this.timeout = timeout;
        }

        /** The bound address. */
        public SocketAddress address() {
            return server.getLocalSocketAddress();
        }

        /**
         * The next incoming connection; the TCP handshake completes whether this is called or not.
         *
         * @throws SocketTimeoutException if none came in time
         */
        public RawMpaPeer accept() throws IOException {
            return new RawMpaPeer(server.accept(), timeout);
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    /** Connects to {@code remote}; reads wait {@link #TIMEOUT}. */
    public static RawMpaPeer connect(SocketAddress remote) throws IOException {
        return connect(remote, TIMEOUT);
    }

    /** Connects to {@code remote}; the connection and each read wait {@code timeout}. */
    public static RawMpaPeer connect(SocketAddress remote, Duration timeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(remote, (int) timeout.toMillis());
            return new RawMpaPeer(socket, timeout);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * A startup frame built by hand: {@code key} (16 octets), the flags octet, Rev and PD_Length as given, then
     * {@code privateData} whatever PD_Length says.
     */
    public static byte[] frame(byte[] key, int flags, int revision, int pdLength, byte[] privateData) {
        ByteBuffer frame = ByteBuffer.allocate(MpaStartupFrame.HEADER_LENGTH + privateData.length);
        frame.put(key, 0, MpaStartupFrame.KEY_LENGTH);
        frame.put((byte) flags).put((byte) revision).putShort((short) pdLength).put(privateData);
        return frame.array();
    }

    /** An enhanced data block followed by {@code ulp}, as the private data of an S=1 frame. */
    public static byte[] enhanced(int enhancedData, byte[] ulp) {
        return ByteBuffer.allocate(4 + ulp.length).putInt(enhancedData).put(ulp).array();
    }

    /** Sends {@code octets} as they are. */
    public void send(byte[] octets) throws IOException {
        out.write(octets);
        out.flush();
    }

    /** Sends a startup frame. */
    public void send(MpaStartupFrame frame) throws IOException {
        send(frame.toByteArray());
    }

    /** Frames {@code ulpdu} as one FPDU without Markers, with a CRC or a zero CRC field, and sends it. */
    public void sendFpdu(byte[] ulpdu, boolean crc) throws IOException {
        MpaFramer framer = new MpaFramer(false, crc);
        ByteBuffer fpdu = ByteBuffer.allocate(framer.wireLength(ulpdu.length));
        framer.frame(ByteBuffer.wrap(ulpdu), fpdu);
        send(fpdu.array());
    }

    /** How long each read waits from now on. */
    public void timeout(Duration timeout) throws IOException {
        socket.setSoTimeout((int) timeout.toMillis());
    }

    /** Shuts the sending half (FIN) and leaves the receiving half open. */
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** Reads one startup frame: the 20-octet header, then as many octets as its PD_Length says. */
    public Frame readFrame() throws IOException {
        byte[] header = new byte[MpaStartupFrame.HEADER_LENGTH];
        in.readFully(header);
        int pdLength = ByteBuffer.wrap(header).getShort(MpaStartupFrame.PD_LENGTH_OFFSET) & 0xFFFF;
        byte[] frame = java.util.Arrays.copyOf(header, header.length + pdLength);
        in.readFully(frame, header.length, pdLength);
        return new Frame(frame);
    }

    /**
     * Reads one FPDU sent without Markers and returns its ULPDU; with {@code crc} the CRC32c is checked (RFC 5044
     * §4.4: over ULPDU_Length, ULPDU and PAD, least significant octet first), without it the field must be zero.
     */
    public byte[] readFpdu(boolean crc) throws IOException {
        int ulpduLength = in.readUnsignedShort();
        int padded = MpaFpdu.fpduLength(ulpduLength) - MpaFpdu.ULPDU_LENGTH_LENGTH - MpaFpdu.CRC_LENGTH;
        byte[] body = new byte[padded];
        in.readFully(body);
        byte[] crcField = new byte[MpaFpdu.CRC_LENGTH];
        in.readFully(crcField);
        int expected = 0;
        if (crc) {
            CRC32C check = new CRC32C();
            check.update(new byte[] {(byte) (ulpduLength >>> 8), (byte) ulpduLength});
            check.update(body);
            expected = (int) check.getValue();
        }
        int actual = ByteBuffer.wrap(crcField).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (actual != expected) {
            throw new IOException("FPDU CRC field " + Integer.toHexString(actual) + ", expected "
                    + Integer.toHexString(expected));
        }
        return java.util.Arrays.copyOf(body, ulpduLength);
    }

    /**
     * Waits for the peer's FIN with nothing before it: the next read must see the end of the stream. Returns the
     * milliseconds it took; fails if an octet arrives instead, or if the connection stays open for
     * {@link #TIMEOUT}.
     */
    public long awaitEof() throws IOException {
        long start = System.nanoTime();
        try {
            int next = in.read();
            if (next >= 0) {
                throw new IOException("expected the end of the stream, got octet 0x" + Integer.toHexString(next));
            }
        } catch (SocketTimeoutException e) {
            throw new EOFException("the peer kept the connection open for " + socket.getSoTimeout() + " ms");
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
