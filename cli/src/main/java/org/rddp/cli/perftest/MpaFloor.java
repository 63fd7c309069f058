package org.rddp.cli.perftest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.zip.CRC32C;

/**
 * The RFC's floor for a Send ping-pong over MPA (issue 36): a minimal program doing only the per-octet work RFC 5044
 * asks of each hop, and nothing an engine adds (no queues, no work requests, no completions, no registered memory).
 * The sender cuts the message into FPDUs of at most the MULPDU and writes each in one gathering write: its ULPDU
 * length, a Send's DDP and RDMAP header (RFC 5041 §4.3, RFC 5040 §4), the payload where it lies, the pad and the CRC32c
 * over them all (§4.4). The receiver reads what has arrived in bulk, checks each FPDU's CRC and only then copies its
 * payload into the target (§8: no data is placed before its check). RDDP over MPA's latency is judged against it.
 */
public final class MpaFloor implements AutoCloseable {
    /** A Send's DDP untagged header with RDMAP's control octet: 18 octets after the ULPDU length. */
    static final int SEND_HEADER = 18;
    private static final int LENGTH = 2;
    private static final int CRC = 4;
    /** What one read may take in: many FPDUs. */
    private static final int STAGING = 256 << 10;

    private final SocketChannel channel;
    private final Baselines.Busy busy;
    private final int payloadPerFpdu;
    private final ByteBuffer header = ByteBuffer.allocateDirect(LENGTH + SEND_HEADER);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(3 + CRC);
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING).flip();
    private final ByteBuffer[] gather = new ByteBuffer[3];
    private final CRC32C crc = new CRC32C();
    private int msn;

    /**
     * @param mulpdu the largest FPDU's ULPDU (RFC 5044 §4.5), as RDDP over MPA uses on the same path
     */
    public MpaFloor(SocketChannel channel, int mulpdu, Duration timeout) throws IOException {
        if (mulpdu <= SEND_HEADER || mulpdu + LENGTH + 3 + CRC > STAGING) {
            throw new IllegalArgumentException("MULPDU " + mulpdu + " outside " + (SEND_HEADER + 1) + ".."
                    + (STAGING - LENGTH - 3 - CRC));
        }
        this.channel = channel;
        this.busy = new Baselines.Busy(channel, timeout);
        this.payloadPerFpdu = mulpdu - SEND_HEADER;
    }

    /** The pinger's end: {@code iterations} round trips of {@code size} octets. */
    public static PerfResult.Latency ping(SocketChannel channel, int mulpdu, int size, int iterations,
            Duration timeout) throws IOException {
        ByteBuffer message = ByteBuffer.allocateDirect(size);
        ByteBuffer echo = ByteBuffer.allocateDirect(size);
        long[] rtt = new long[iterations];
        try (MpaFloor floor = new MpaFloor(channel, mulpdu, timeout)) {
            for (int i = 0; i < iterations; i++) {
                long start = System.nanoTime();
                floor.send(message.clear());
                floor.receive(echo.clear(), "the echo of message " + i);
                rtt[i] = System.nanoTime() - start;
            }
        }
        return PerfResult.Latency.of(size, rtt, 2);
    }

    /** The echo's end: receives each of {@code iterations} messages of {@code size} octets and sends it back. */
    public static void echo(SocketChannel channel, int mulpdu, int size, int iterations, Duration timeout)
            throws IOException {
        ByteBuffer message = ByteBuffer.allocateDirect(size);
        try (MpaFloor floor = new MpaFloor(channel, mulpdu, timeout)) {
            for (int i = 0; i < iterations; i++) {
                floor.receive(message.clear(), "message " + i);
                floor.send(message.flip());
            }
        }
    }

    /** Sends {@code message}'s remaining octets as one Send: FPDUs of at most the MULPDU, the last one marked. */
    void send(ByteBuffer message) throws IOException {
        int offset = message.position();
        int end = message.limit();
        do {
            int length = Math.min(payloadPerFpdu, end - offset);
            boolean last = offset + length == end;
            int ulpdu = SEND_HEADER + length;
            int pad = -(LENGTH + ulpdu) & 3;
            header.clear();
            header.putShort((short) ulpdu);
            header.put((byte) (last ? 0x41 : 0x01)); // DDP: untagged, L when last, version 1
            header.put((byte) 0x43); // RDMAP: version 1, Send (opcode 3)
            header.putInt(0); // reserved for the ULP (an invalidated STag)
            header.putInt(0); // queue number 0: Sends
            header.putInt(msn);
            header.putInt(offset - message.position()); // message offset
            header.flip();
            ByteBuffer payload = message.duplicate().limit(offset + length).position(offset);
            crc.reset();
            crc.update(header.duplicate());
            crc.update(payload.duplicate());
            trailer.clear();
            for (int i = 0; i < pad; i++) {
                trailer.put((byte) 0);
            }
            crc.update(trailer.duplicate().flip());
            trailer.putInt((int) crc.getValue()).flip();
            gather[0] = header;
            gather[1] = payload;
            gather[2] = trailer;
            long start = System.nanoTime();
            while (trailer.hasRemaining()) {
                if (channel.write(gather) == 0) {
                    busy.await(start, SelectionKey.OP_WRITE, "room to send");
                }
            }
            offset += length;
        } while (offset < end);
        msn++;
    }

    /** Receives one Send into {@code target}, to its limit: each FPDU's CRC checked before its payload is copied. */
    void receive(ByteBuffer target, String what) throws IOException {
        while (target.hasRemaining()) {
            available(LENGTH, what);
            int ulpdu = Short.toUnsignedInt(staging.getShort(staging.position()));
            int total = LENGTH + ulpdu + (-(LENGTH + ulpdu) & 3) + CRC;
            if (ulpdu < SEND_HEADER || total > STAGING) {
                throw new IOException("an FPDU of " + ulpdu + " octets: not a Send from the floor's peer");
            }
            available(total, what); // may move what is staged to the buffer's start
            int start = staging.position();
            crc.reset();
            crc.update(staging.duplicate().limit(start + total - CRC));
            if ((int) crc.getValue() != staging.getInt(start + total - CRC)) {
                throw new IOException("an FPDU failed its CRC (RFC 5044 §4.4)");
            }
            int length = ulpdu - SEND_HEADER;
            if (length > target.remaining()) {
                throw new IOException("a Send longer than the target: " + length + " more octets, room for "
                        + target.remaining());
            }
            int from = start + LENGTH + SEND_HEADER;
            target.put(staging.duplicate().limit(from + length).position(from));
            staging.position(start + total);
        }
    }

    /** Reads until {@code octets} are staged after the position, as many as arrived with them. */
    private void available(int octets, String what) throws IOException {
        if (staging.remaining() >= octets) {
            return;
        }
        staging.compact();
        long start = System.nanoTime();
        while (staging.position() < octets) {
            int read = channel.read(staging);
            if (read < 0) {
                throw new IOException("the peer closed the connection before " + what);
            }
            if (read == 0) {
                busy.await(start, SelectionKey.OP_READ, what);
            }
        }
        staging.flip();
    }

    @Override
    public void close() throws IOException {
        busy.close();
    }
}
