package org.rddp.transport.mpa;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.rddp.error.MpaError;
import org.rddp.error.TerminateCause;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.LlpSink;
import org.rddp.llp.LlpStream;
import org.rddp.mpa.MpaDeframer;
import org.rddp.mpa.MpaFpdu;
import org.rddp.mpa.MpaFramer;
import org.rddp.wire.DecodeStatus;

/**
 * One DDP stream over one TCP connection in MPA Full Operation (RFC 5044 §4-§6, §8).
 *
 * <p>Sending: an FPDU with up to {@value #STAGED_PAYLOAD} octets of payload is built whole in the pending buffer
 * (one copy, CRC32c computed over it there) and held until the engine {@linkplain #flush() flushes} or the buffer
 * fills, so that the FPDUs of a message cut to the MULPDU of a 1500-octet path (about 1.4 KiB each), or many
 * small messages, leave in one write rather than a system call each. A larger FPDU is the 2-octet ULPDU_Length
 * and the segment's header in one small buffer, the payload as a view of the registered memory, and PAD and CRC
 * in another: one gathering write together with what is held, CRC32c computed over the parts in place, no copy
 * unless TCP takes only part of it (the rest is copied to the pending buffer, and the stream pushes back until
 * the socket took it). With Markers asked for by the peer, FPDUs are built by {@link MpaFramer} into the pending
 * buffer instead.
 *
 * <p>Receiving: reads go into one large buffer, and FPDUs are found, CRC-checked and handed to DDP where they lie,
 * so the only copy in user space is DDP's placement into the registered region, after the CRC passed. Placing
 * straight from the socket into the region would skip that copy but place octets whose CRC is not yet known:
 * RFC 5044 §6 has the receiver verify an FPDU before DDP sees it, and bad data must never reach a region. With
 * Markers the stream goes through {@link MpaDeframer}, which strips them.
 *
 * <p>Threads: the stream lives on one {@link org.rddp.loop.Loop}, whose {@link SelectorPoller} watches its socket;
 * everything here runs on that loop's thread. It always watches for reads, even after an error, when what comes
 * is discarded: the peer's FIN or reset must still be seen.
 */
final class MpaStream implements LlpStream, SelectorPoller.Handler {
    private static final int READ_CAPACITY = 1 << 19;
    private static final int PENDING_CAPACITY = 1 << 18;
    private static final int LARGEST_FPDU = MpaFpdu.fpduLength(MpaFpdu.MAX_ULPDU_LENGTH_FIELD);
    private static final int LARGEST_HEADER = 512;
    /** Payloads up to this size are copied into the pending buffer with their header and held for one write. */
    private static final int STAGED_PAYLOAD = 16 * 1024;
    private static final java.lang.foreign.ValueLayout.OfInt CRC_LAYOUT = java.lang.foreign.ValueLayout
            .JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final SocketChannel channel;
    private final LlpParameters parameters;
    private final int mulpdu;
    private final boolean markersOut;
    private final boolean markersIn;
    private final boolean crc;
    private final SelectorPoller poller;
    private SelectionKey key;
    private final String name;

    private final CRC32C sendCrc = new CRC32C();
    private final ByteBuffer head = ByteBuffer.allocateDirect(MpaFpdu.ULPDU_LENGTH_LENGTH + LARGEST_HEADER);
    private final MemorySegment headSegment = MemorySegment.ofBuffer(head);
    private final ByteBuffer tail = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer[] gather = new ByteBuffer[4];
    /** What is to be written, in stream order: held FPDUs, or what TCP did not take yet ({@link #pendingWrites}). */
    private final ByteBuffer pending = ByteBuffer.allocateDirect(PENDING_CAPACITY);
    private final MemorySegment pendingSegment = MemorySegment.ofBuffer(pending);
    private final ByteBuffer pendingView = pending.duplicate();
    private final MpaFramer framer;
    private final ByteBuffer ulpdu;

    private final ByteBuffer in = ByteBuffer.allocateDirect(READ_CAPACITY);
    private final ByteBuffer inView = in.duplicate();
    private final ByteBuffer inCrc = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment inSegment = MemorySegment.ofBuffer(in);
    private final CRC32C receiveCrc = new CRC32C();
    private final MpaDeframer deframer;
    private int readAt;

    private final java.util.function.Consumer<MpaStream> onShut;
    private LlpSink sink;
    private volatile boolean down;
    private boolean receiveFailed;
    private boolean closing;
    private boolean outputShut;
    private boolean wantWritable;
    /** TCP did not take all of {@link #pending}: the stream waits for room, and sends push back. */
    private boolean pendingWrites;
    /** Octets read and written so far: whether a look at the socket did anything. Loop thread. */
    private long octetsMoved;
    /** Writes to the socket so far: how well FPDUs are held together shows here. */
    private volatile long writes;

    /**
     * A stream over {@code channel}, which has finished the startup phase; Full Operation begins at the next octet
     * either way.
     *
     * @param markersOut put Markers into what this side sends (the peer's M bit)
     * @param markersIn  the peer puts Markers into what it sends (this side's M bit)
     * @param crc        CRCs are in use (either side's C bit)
     * @param poller     the I/O of the loop the stream lives on
     * @param onShut     told once the socket is closed, on the loop
     */
    MpaStream(SocketChannel channel, SelectorPoller poller, LlpParameters parameters, int mulpdu, boolean markersOut,
            boolean markersIn, boolean crc, java.util.function.Consumer<MpaStream> onShut) throws IOException {
        this.onShut = onShut;
        this.channel = channel;
        this.parameters = parameters;
        this.mulpdu = mulpdu;
        this.markersOut = markersOut;
        this.markersIn = markersIn;
        this.crc = crc;
        this.name = "mpa-" + NAMES.incrementAndGet();
        this.framer = markersOut ? new MpaFramer(true, crc) : null;
        this.ulpdu = markersOut ? ByteBuffer.allocateDirect(MpaFpdu.MAX_ULPDU) : null;
        this.deframer = markersIn ? new MpaDeframer(true, crc, this::deliver) : null;
        this.poller = poller;
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    @Override
    public LlpParameters parameters() {
        return parameters;
    }

    @Override
    public int mulpdu() {
        return mulpdu;
    }

    /** Starts reading: the socket joins the loop's selector. Loop thread. */
    @Override
    public void start(LlpSink newSink) {
        this.sink = newSink;
        try {
            key = poller.register(channel, interest(), this);
        } catch (IOException e) {
            lost("TCP connection closed before the stream started: " + e.getMessage());
        }
    }

    /** The socket is (or may be) ready: reads what arrived, writes what is pending, and reports room. Loop thread. */
    @Override
    public int ready(int readyOps) {
        if (down || sink == null) {
            return 0;
        }
        long before = octetsMoved;
        try {
            if (pending.position() > 0) {
                writePending();
            }
            readAll();
            if (down) {
                return 1;
            }
            if (pending.position() == 0) {
                if (closing && !outputShut) {
                    channel.shutdownOutput(); // everything sent: the FIN follows it (RFC 5044 §7.2)
                    outputShut = true;
                }
                if (wantWritable) {
                    wantWritable = false;
                    sink.onWritable();
                }
            }
            watch();
        } catch (IOException e) {
            lost("TCP connection failed: " + e.getMessage());
            return 1;
        }
        return octetsMoved == before ? 0 : 1;
    }

    private int interest() {
        return SelectionKey.OP_READ | (pendingWrites ? SelectionKey.OP_WRITE : 0);
    }

    /** Watches for room to write while some writes are pending, and always for reads. Loop thread. */
    private void watch() {
        if (key != null && key.isValid() && key.interestOps() != interest()) {
            key.interestOps(interest());
        }
    }

    private void readAll() throws IOException {
        while (!down) {
            if (in.remaining() < LARGEST_FPDU && readAt > 0) {
                in.limit(in.position()).position(readAt);
                in.compact(); // a partial FPDU moves to the front; the next read completes it
                readAt = 0;
            }
            int room = in.remaining();
            int read = channel.read(in);
            if (read < 0) {
                peerClosed();
                return;
            }
            if (read == 0) {
                return;
            }
            octetsMoved += read;
            boolean drained = read < room; // a short read emptied the socket: no second read to learn that
            if (receiveFailed) {
                in.clear(); // after an MPA error nothing more is delivered (RFC 5044 §8): read only to see the close
                readAt = 0;
            } else if (markersIn) {
                inView.limit(in.position()).position(readAt);
                DecodeStatus status = deframer.receive(inView);
                in.clear();
                readAt = 0;
                if (!status.ok()) {
                    fail(status.terminateCause().orElse(MpaError.CRC_ERROR), status == DecodeStatus.MPA_CRC
                            ? "CRC mismatch" : "a Marker disagrees with the ULPDU_Length");
                }
            } else {
                parse();
            }
            if (drained) {
                return;
            }
        }
    }

    /** Hands over every whole FPDU in the buffer, checked in place. */
    private void parse() {
        int end = in.position();
        while (end - readAt >= MpaFpdu.ULPDU_LENGTH_LENGTH && !receiveFailed && !down) {
            int length = in.getShort(readAt) & 0xFFFF;
            int covered = MpaFpdu.ULPDU_LENGTH_LENGTH + length + MpaFpdu.padLength(length);
            if (end - readAt < covered + MpaFpdu.CRC_LENGTH) {
                break;
            }
            if (crc) {
                inView.limit(readAt + covered).position(readAt);
                receiveCrc.reset();
                receiveCrc.update(inView);
                int received = inCrc.getInt(readAt + covered); // least significant octet first (§4.4)
                if (received != (int) receiveCrc.getValue()) {
                    fail(MpaError.CRC_ERROR, String.format("CRC mismatch in the FPDU at stream octet %d: "
                            + "received 0x%08x, computed 0x%08x", readAt, received, (int) receiveCrc.getValue()));
                    return;
                }
            }
            int ulpduAt = readAt + MpaFpdu.ULPDU_LENGTH_LENGTH;
            readAt += covered + MpaFpdu.CRC_LENGTH;
            sink.onSegment(inSegment, ulpduAt, length, false);
        }
        if (readAt == in.position()) {
            in.clear();
            readAt = 0;
        }
    }

    private void deliver(MemorySegment buffer, long offset, int length) {
        if (!down && !receiveFailed) {
            sink.onSegment(buffer, offset, length, false);
        }
    }

    /** An MPA error: DDP hears it and sends the Terminate; nothing more is delivered (RFC 5044 §8). */
    private void fail(TerminateCause cause, String detail) {
        receiveFailed = true;
        sink.onLlpError(cause, detail);
    }

    private void peerClosed() throws IOException {
        if (!closing) {
            // the peer's FIN: its side is done (RFC 5044 §7.2); close ours after what is pending
            closing = true;
            if (pending.position() > 0) {
                writePending();
            }
            if (!outputShut) {
                channel.shutdownOutput();
                outputShut = true;
            }
        }
        down = true;
        shut(false);
        sink.onClosed(true, "the TCP connection closed in order");
    }

    private void lost(String reason) {
        if (down) {
            return;
        }
        down = true;
        shut(true);
        LlpSink current = sink;
        if (current != null) {
            current.onClosed(false, reason);
        }
    }

    @Override
    public int send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
            long payloadOffset, int payloadLength) {
        if (down || closing) {
            return CLOSED;
        }
        int ulpduLength = headerLength + payloadLength;
        if (ulpduLength > mulpdu || headerLength > LARGEST_HEADER) {
            throw new IllegalArgumentException("segment of " + ulpduLength + " octets exceeds the MULPDU " + mulpdu);
        }
        if (pendingWrites) {
            // TCP is full: wait for room rather than hold more behind what it did not take
            wantWritable = true;
            return BACK_PRESSURED;
        }
        if (markersOut) {
            return sendWithMarkers(header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
        }
        int pad = MpaFpdu.padLength(ulpduLength);
        // room for the whole FPDU: a staged one is built there, and of a larger one TCP may take nothing
        int room = makeRoom(MpaFpdu.ULPDU_LENGTH_LENGTH + ulpduLength + pad + MpaFpdu.CRC_LENGTH);
        if (room != SENT) {
            return room;
        }
        if (payloadLength <= STAGED_PAYLOAD) {
            stage(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, pad);
            return SENT;
        }
        head.clear();
        head.putShort((short) ulpduLength);
        MemorySegment.copy(header, headerOffset, headSegment, MpaFpdu.ULPDU_LENGTH_LENGTH, headerLength);
        head.limit(MpaFpdu.ULPDU_LENGTH_LENGTH + headerLength).position(0);
        ByteBuffer body = payload.asSlice(payloadOffset, payloadLength).asByteBuffer();
        tail.clear();
        for (int i = 0; i < pad; i++) {
            tail.put((byte) 0);
        }
        int value = 0;
        if (crc) {
            sendCrc.reset();
            sendCrc.update(head);
            head.position(0);
            sendCrc.update(body);
            body.position(0);
            tail.flip();
            sendCrc.update(tail);
            tail.limit(tail.capacity()).position(pad);
            value = (int) sendCrc.getValue();
        }
        tail.putInt(value); // least significant octet first (§4.4)
        tail.flip();
        return writeBehindHeld(head, body, tail);
    }

    /**
     * Builds an FPDU in the pending buffer, where it is held until {@link #flush()}: the length, the header, the
     * payload, PAD, and the CRC computed over the copy.
     */
    private void stage(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
            long payloadOffset, int payloadLength, int pad) {
        int start = pending.position();
        int at = start + MpaFpdu.ULPDU_LENGTH_LENGTH;
        pending.putShort(start, (short) (headerLength + payloadLength));
        MemorySegment.copy(header, headerOffset, pendingSegment, at, headerLength);
        at += headerLength;
        MemorySegment.copy(payload, payloadOffset, pendingSegment, at, payloadLength);
        at += payloadLength;
        for (int i = 0; i < pad; i++) {
            pending.put(at++, (byte) 0);
        }
        int value = 0;
        if (crc) {
            pendingView.limit(at).position(start);
            sendCrc.reset();
            sendCrc.update(pendingView);
            value = (int) sendCrc.getValue();
        }
        pendingSegment.set(CRC_LAYOUT, at, value); // least significant octet first (§4.4)
        pending.position(at + MpaFpdu.CRC_LENGTH);
    }

    /** Makes room for {@code wire} more octets in the pending buffer, writing what it holds if it must. */
    private int makeRoom(int wire) {
        return pending.remaining() >= wire ? SENT : writeHeld();
    }

    /**
     * Writes what the pending buffer holds; {@link #SENT} if TCP took it all, else the stream waits for room and
     * pushes back.
     */
    private int writeHeld() {
        try {
            writePending();
        } catch (IOException e) {
            lost("TCP connection failed: " + e.getMessage());
            return CLOSED;
        }
        if (pendingWrites) {
            watch();
            wantWritable = true;
            return BACK_PRESSURED;
        }
        return SENT;
    }

    /**
     * Writes the held FPDUs and then an FPDU made of {@code parts}, in one gathering write; what TCP does not take
     * stays in (or is copied to) the pending buffer, so the caller may reuse its memory once this returns, and the
     * stream waits for room.
     */
    private int writeBehindHeld(ByteBuffer first, ByteBuffer second, ByteBuffer third) {
        pending.flip();
        gather[0] = pending;
        gather[1] = first;
        gather[2] = second;
        gather[3] = third;
        try {
            writes++;
            channel.write(gather);
        } catch (IOException e) {
            pending.clear();
            lost("TCP connection failed: " + e.getMessage());
            return CLOSED;
        } finally {
            gather[2] = null; // a view of registered memory: not kept past the call
        }
        pending.compact(); // what TCP did not take of the held FPDUs moves to the front
        pending.put(first).put(second).put(third);
        pendingWrites = pending.position() > 0;
        if (pendingWrites) {
            watch();
        }
        return SENT;
    }

    private int sendWithMarkers(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
            long payloadOffset, int payloadLength) {
        int ulpduLength = headerLength + payloadLength;
        int room = makeRoom(framer.wireLength(ulpduLength));
        if (room != SENT) {
            return room;
        }
        MemorySegment scratch = MemorySegment.ofBuffer(ulpdu);
        MemorySegment.copy(header, headerOffset, scratch, 0, headerLength);
        MemorySegment.copy(payload, payloadOffset, scratch, headerLength, payloadLength);
        ulpdu.limit(ulpduLength).position(0);
        framer.frame(ulpdu, pending); // held like any staged FPDU: the Markers follow the stream's octets anyway
        ulpdu.clear();
        return SENT;
    }

    /** Writes the held FPDUs (the engine stopped sending for now). Owner thread. */
    @Override
    public void flush() {
        if (!down && !pendingWrites && pending.position() > 0) {
            writeHeld();
        }
    }

    /** Writes what the pending buffer holds, as much as TCP takes; {@link #pendingWrites} says if some is left. */
    private void writePending() throws IOException {
        pending.flip();
        writes++;
        octetsMoved += channel.write(pending);
        pending.compact();
        pendingWrites = pending.position() > 0;
    }

    /** How many writes the stream made to its socket so far. Loop thread, or once it is quiet. */
    long writes() {
        return writes;
    }

    @Override
    public void close() {
        if (down || closing) {
            return;
        }
        closing = true;
        try {
            if (pending.position() > 0 && !pendingWrites) {
                writePending(); // the held FPDUs go before the FIN
                watch();
            }
            if (pending.position() == 0) {
                channel.shutdownOutput();
                outputShut = true;
            }
        } catch (IOException e) {
            lost("TCP connection failed while closing: " + e.getMessage());
        }
        // the peer's FIN ends it (peerClosed); a peer that sends nothing more keeps it half open, as TCP does
    }

    /** Resets the connection; the sink hears that it was lost. Loop thread. */
    @Override
    public void abort() {
        if (!down) {
            down = true;
            shut(true);
            LlpSink current = sink;
            if (current != null) {
                current.onClosed(false, "aborted");
            }
        }
    }

    /** Closes the socket (with a reset when {@code reset}), which takes it out of the selector. */
    private void shut(boolean reset) {
        poller.deregister(this);
        try {
            if (reset && channel.isOpen()) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
        onShut.accept(this);
    }

    @Override
    public String toString() {
        return name + "[" + (crc ? "CRC" : "no CRC") + (markersOut || markersIn ? ", markers" : "") + "]";
    }
}
