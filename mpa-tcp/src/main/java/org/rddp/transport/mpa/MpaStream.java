package org.rddp.transport.mpa;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.error.MpaError;
import org.rddp.error.TerminateCause;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.LlpSink;
import org.rddp.llp.LlpStream;
import org.rddp.loop.Deadline;
import org.rddp.mpa.MpaDeframer;
import org.rddp.mpa.MpaFpdu;
import org.rddp.mpa.MpaFramer;
import org.rddp.wire.DecodeStatus;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;

/**
 * One DDP stream over one TCP connection in MPA Full Operation (RFC 5044 §4-§6, §8). FPDUs are made and taken apart
 * by the tested codec only: {@link MpaFramer} and {@link MpaDeframer}, Markers a mode of each.
 *
 * <p>Sending: an FPDU with up to {@value #STAGED_PAYLOAD} octets of payload (or any, with Markers) is framed whole
 * into the pending buffer (one copy, CRC32c computed over it there); a larger one is framed around its payload
 * ({@link MpaFramer#frameAround}): the 2-octet ULPDU_Length and the segment's header, then PAD and CRC, go into the
 * pending buffer and the payload stays where it lies in registered memory. Either way the FPDU is held until the
 * engine {@linkplain #flush() flushes}, the buffer fills, or the next FPDU framed around comes, and what is held
 * leaves in one gathering write: the FPDUs of a message cut to the MULPDU of a 1500-octet path (about 1.4 KiB each),
 * or many small messages, rather than a system call each; and one large FPDU with the small ones around it (a 64 KiB
 * Send with its short last FPDU). Large FPDUs leave one per write, each filling a TCP segment of its own (RFC 5044
 * §4.5). An application that keeps posting small messages sends bursts of many: those wait a duty cycle for the next
 * burst, so that its writes are as large as a TCP stream's ({@link #flush(int)}). A payload left in place is read
 * until TCP has taken it ({@link #holdsPayload}): the engine reports its send complete only then ({@link #releases}).
 * What TCP does not take stays held, as it is, and the stream pushes back until the socket took it.
 *
 * <p>Receiving: reads go into the loop's read buffer, shared by every stream on the loop; the deframer hands each FPDU
 * that lies whole in it to DDP where it lies once its CRC is checked, and keeps a copy of one cut short by the end of
 * the read. So the only copy in user space is DDP's placement into the registered region, after the CRC passed.
 * Placing straight from the socket into the region would skip that copy but place octets whose CRC is not yet known:
 * RFC 5044 §6 has the receiver verify an FPDU before DDP sees it, and bad data must never reach a region.
 *
 * <p>Threads: the stream lives on one {@link org.rddp.loop.Loop}, whose {@link SelectorPoller} watches its socket;
 * everything here runs on that loop's thread. It always watches for reads, even after an error, when what comes
 * is discarded: the peer's FIN or reset must still be seen.
 */
final class MpaStream implements LlpStream, SelectorPoller.Handler {
    static final int PENDING_CAPACITY = 1 << 17;
    /**
     * Parts of one gathering write: what is staged before a payload framed around, the payload, and its tail with
     * what is staged after it. One payload at most: the next one writes what is held first (see {@link #send}).
     */
    private static final int PARTS = 3;
    private static final int LARGEST_HEADER = 512;
    /** Payloads up to this size are copied into the pending buffer with their header and held for one write. */
    private static final int STAGED_PAYLOAD = 16 * 1024;
    /**
     * A burst of at least this many messages is a stream of them ({@link #flush(int)}): its FPDUs wait a cycle for the
     * next burst's, up to a full pending buffer. Writes of ~100 staged 64-octet FPDUs (8 KiB, a burst of perftest's
     * defaults) spent most of the sender's time per write, not per octet: carried to a full buffer, 64-octet Writes
     * went from 0.44-0.46 to 0.58-0.60 times the TCP socket's rate, 256-octet ones from 0.49-0.50 to 0.57.
     */
    static final int CARRY_MESSAGES = 16;
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final SocketChannel channel;
    /** The connection under it: what it runs, its paths, its close. */
    private final TcpConnection tcp;
    private final LlpParameters parameters;
    private final int mulpdu;
    private final boolean markersOut;
    private final boolean markersIn;
    private final boolean crc;
    private final SelectorPoller poller;
    private SelectionKey key;
    private final String name;

    /**
     * The octets this side frames, from index 0 in stream order: staged FPDUs, and the heads and tails of the FPDUs
     * framed around their payloads; the position is where the next one goes.
     */
    private final ByteBuffer pending = ByteBuffer.allocateDirect(PENDING_CAPACITY);
    /**
     * What the next write sends, in stream order, from {@link #first} to {@link #count}: views of {@link #pending}
     * and of the payloads framed around; each view's position says how much of it TCP took.
     */
    private final ByteBuffer[] parts = new ByteBuffer[PARTS];
    /** Views of {@link #pending}, made as they are first needed and used again after every write that took all. */
    private final ByteBuffer[] regions = new ByteBuffer[2];
    private int regionsUsed;
    private int first;
    private int count;
    /** Whether the last part is a view of {@link #pending}, which the next staged octets extend. */
    private boolean lastIsRegion;
    /** Whether a payload view is among the parts: memory read until TCP took it ({@link #holdsPayload}). */
    private boolean payloadHeld;
    /** Whether TCP took part of what is held: the wire may end inside an FPDU. */
    private boolean partlyWritten;
    /** What is held waits for the next cycle's burst ({@link #flush(int)}): this cycle's turn of the stream skips. */
    private boolean carried;
    /** Writes that left nothing held ({@link #releases}). */
    private long releases;
    private final MpaFramer framer;
    private final MpaDeframer deframer;

    private final java.util.function.Consumer<MpaStream> onShut;
    private final Counters counters;
    private LlpSink sink;
    private volatile boolean down;
    private boolean receiveFailed;
    private boolean closing;
    private boolean outputShut;
    private boolean wantWritable;
    /** TCP did not take all that is held: the stream waits for room, and sends push back. */
    private boolean pendingWrites;
    /** Octets read and written so far: whether a look at the socket did anything. Loop thread. */
    private long octetsMoved;
    /** {@link MpaOptions#idleTimeout} in nanoseconds; 0: none. */
    private final long idleNanos;
    /** {@link MpaOptions#closeTimeout} and {@link MpaOptions#fpduTimeout}, in nanoseconds. */
    private final long closeNanos;
    private final long fpduNanos;
    private Deadline closeCheck;
    private Deadline fpduCheck;
    /** Octets read so far, and at the last look at a partial FPDU. Loop thread. */
    private long octetsRead;
    private long octetsReadAtFpduCheck;
    private Deadline idleCheck;
    private long octetsAtIdleCheck = -1;
    private long writesAtIdleCheck = -1;
    /** Writes to the socket so far: how well FPDUs are held together shows here. */
    private volatile long writes;

    /**
     * A stream over {@code tcp}'s channel, which has finished the startup phase; Full Operation begins at the next
     * octet either way.
     *
     * @param markersOut put Markers into what this side sends (the peer's M bit)
     * @param markersIn  the peer puts Markers into what it sends (this side's M bit)
     * @param crc        CRCs are in use (either side's C bit)
     * @param poller     the I/O of the loop the stream lives on
     * @param timeouts   the idle, close and FPDU timeouts ({@link MpaOptions})
     * @param counters   its connection manager's counters
     * @param onShut     told once the socket is closed, on the loop
     */
    MpaStream(TcpConnection tcp, SelectorPoller poller, LlpParameters parameters, int mulpdu, boolean markersOut,
            boolean markersIn, boolean crc, MpaOptions timeouts, Counters counters,
            java.util.function.Consumer<MpaStream> onShut) throws IOException {
        this.onShut = onShut;
        this.counters = counters;
        this.idleNanos = timeouts.idleTimeout().toNanos();
        this.closeNanos = timeouts.closeTimeout().toNanos();
        this.fpduNanos = timeouts.fpduTimeout().toNanos();
        this.tcp = tcp;
        this.channel = tcp.channel;
        this.parameters = parameters;
        this.mulpdu = mulpdu;
        this.markersOut = markersOut;
        this.markersIn = markersIn;
        this.crc = crc;
        this.name = "mpa-" + NAMES.incrementAndGet();
        this.framer = new MpaFramer(markersOut, crc);
        this.deframer = new MpaDeframer(markersIn, crc, this::deliver);
        this.poller = poller;
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    /** A TCP connection's one path, to the peer's address; a Multipath TCP connection's subflows. */
    @Override
    public java.util.List<org.rddp.llp.LlpPath> paths() {
        return tcp.paths();
    }

    /** What the connection under it runs: TCP or Multipath TCP. Any thread. */
    Mptcp.Protocol protocol() {
        return tcp.protocol();
    }

    @Override
    public Counters counters() {
        return counters;
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
        assert poller.loop() == null || poller.loop().inLoop() : "LLP stream called off its loop";
        this.sink = newSink;
        try {
            key = poller.register(channel, interest(), this);
            checkIdle();
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
        int carriedOver = 0;
        try {
            if (carried) {
                carried = false; // the next turn writes it, unless the next burst carries it on
                carriedOver = 1; // the loop has work: it does not sleep on what is held
            } else if (held()) {
                writeOutHere();
            }
            readAll();
            if (down) {
                return 1;
            }
            if (!held()) {
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
        return octetsMoved == before ? carriedOver : 1;
    }

    /**
     * {@link #ready} threw something nothing below it caught (an {@link Error}: the heap ran out under it, say): the
     * connection is reset and the engine hears it lost, a local catastrophic error (RFC 5040 §7.1) of this stream
     * alone. Loop thread.
     */
    @Override
    public void failed(Throwable error) {
        lost("a local catastrophic error: " + error);
    }

    /** Nothing to do until the socket is ready: nothing held to write, no wait for room, not closing. */
    @Override
    public boolean restful() {
        return !down && sink != null && !held() && !wantWritable && !closing;
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

    /** Reads into the loop's read buffer until the socket is empty, handing what came to the deframer. */
    private void readAll() throws IOException {
        ByteBuffer in = poller.readBuffer();
        while (!down) {
            in.clear();
            int read = channel.read(in);
            if (read < 0) {
                peerClosed();
                return;
            }
            if (read == 0) {
                return;
            }
            octetsMoved += read;
            octetsRead += read;
            boolean drained = in.hasRemaining(); // a short read emptied the socket: no second read to learn that
            in.flip();
            if (!receiveFailed) { // after an MPA error nothing is delivered (RFC 5044 §8): read only to see the close
                DecodeStatus status = deframer.receive(in);
                if (!status.ok()) {
                    counters.increment(Counter.MALFORMED_FPDUS);
                    fail(status.terminateCause().orElse(MpaError.CRC_ERROR), deframer.detail());
                }
                if (fpduCheck == null && !deframer.idle()) {
                    octetsReadAtFpduCheck = octetsRead;
                    fpduCheck = poller.loop().schedule(System.nanoTime() + fpduNanos, this::checkFpdu);
                }
            }
            if (drained) {
                return;
            }
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
        if (!receiveFailed && !deframer.idle()) {
            // part of an FPDU, and no more will come: the peer did not end the stream in order, whatever its FIN says
            lost("the peer closed the TCP connection in the middle of an FPDU");
            return;
        }
        if (!closing) {
            // the peer's FIN: its side is done (RFC 5044 §7.2); close ours after what is pending
            closing = true;
            if (held()) {
                writeOutHere();
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
    @SuppressWarnings("checkstyle:IllegalCatch") // whatever the copy from the payload's memory throws is rethrown
    public int send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
            long payloadOffset, int payloadLength) {
        assert poller.loop() == null || poller.loop().inLoop() : "LLP stream called off its loop";
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
        boolean staged = markersOut || payloadLength <= STAGED_PAYLOAD;
        int room = staged ? framer.wireLength(ulpduLength) : MpaFpdu.ULPDU_LENGTH_LENGTH + headerLength
                + MpaFpdu.padLength(ulpduLength) + MpaFpdu.CRC_LENGTH;
        // a payload framed around leaves before the next one is framed: one FPDU that fills a TCP segment per write
        // keeps FPDUs aligned with segments (RFC 5044 §4.5) and the sender and receiver in step; holding the FPDUs of
        // a whole large message for one write measured 1.7 times slower on loopback (2.2 against 3.8 GB/s at 1 MiB)
        if (pending.remaining() < room || (!staged && payloadHeld)) {
            int written = writeHeld();
            if (written != SENT) {
                return written;
            }
        }
        int start = pending.position();
        if (staged) {
            long markerPosition = framer.position();
            try {
                framer.frame(header, headerOffset, headerLength, payload, payloadOffset, payloadLength, pending);
            } catch (RuntimeException e) {
                // the payload's memory failed under the copy (its arena closed): no part of this FPDU goes out, so
                // what the engine sends next (its Terminate) follows whole FPDUs
                pending.position(start);
                framer.rewind(markerPosition);
                throw e;
            }
            addRegion(start, pending.position());
            return SENT; // held until flush (the Markers follow the stream's octets anyway)
        }
        ByteBuffer body = payload.asSlice(payloadOffset, payloadLength).asByteBuffer();
        int split;
        try {
            if (!crc) {
                body.get(body.position()); // memory already freed fails this send, as the CRC's read does
            }
            split = framer.frameAround(header, headerOffset, headerLength, body, pending);
        } catch (RuntimeException e) {
            pending.position(start); // as above; the framer moves on only once the FPDU is framed
            throw e;
        }
        addRegion(start, split);
        parts[count++] = body;
        lastIsRegion = false;
        payloadHeld = true;
        addRegion(split, pending.position());
        return SENT; // held until flush, the payload read where it lies
    }

    /** Adds {@code from} to {@code to} of {@link #pending} to what is held, after the last part. */
    private void addRegion(int from, int to) {
        if (lastIsRegion) {
            parts[count - 1].limit(to); // it ends at from: the octets follow on
            return;
        }
        ByteBuffer region = regions[regionsUsed];
        if (region == null) {
            region = pending.duplicate();
            regions[regionsUsed] = region;
        }
        regionsUsed++;
        region.limit(to).position(from);
        parts[count++] = region;
        lastIsRegion = true;
    }

    /** Whether octets are held: framed and not yet taken by TCP. */
    private boolean held() {
        return first < count;
    }

    /** Writes what is held; {@link #SENT} if TCP took it all, else the stream waits for room and pushes back. */
    private int writeHeld() {
        try {
            writeOut();
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
     * Writes what is held, as much as TCP takes, in one gathering write; {@link #pendingWrites} says if some is left
     * (the sink then hears {@link LlpSink#onWritable} once TCP took it all). A payload whose memory failed (its arena
     * closed: the channel takes every part's memory before it writes any) drops all that is held and the failure goes
     * up: what the engine sends next follows whole FPDUs, or, if TCP already took part of one, the connection is
     * reset.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // rethrown, once nothing is held
    private void writeOut() throws IOException {
        long written;
        try {
            writes++;
            written = count - first == 1 ? channel.write(parts[first]) : channel.write(parts, first, count - first);
        } catch (RuntimeException e) {
            boolean cut = partlyWritten;
            release();
            if (cut) {
                lost("the memory of a payload being sent failed: " + e);
            }
            throw e;
        }
        octetsMoved += written;
        while (first < count && !parts[first].hasRemaining()) {
            parts[first++] = null;
        }
        if (held()) {
            pendingWrites = true;
            partlyWritten = true;
            wantWritable = true; // the engine reports the sends whose payloads are held once TCP took them
        } else {
            releases++;
            release();
        }
    }

    /**
     * {@link #writeOut} on the stream's own turn, where the engine is not the caller: a payload whose memory failed
     * resets the connection, and the engine hears it lost.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // the failure ends the connection, which is how it is reported
    private void writeOutHere() throws IOException {
        try {
            writeOut();
        } catch (RuntimeException e) {
            lost("the memory of a payload being sent failed: " + e);
        }
    }

    /** Forgets what is held (written, or dropped), the payload views with it. */
    private void release() {
        java.util.Arrays.fill(parts, first, count, null);
        first = 0;
        count = 0;
        regionsUsed = 0;
        payloadHeld = false;
        lastIsRegion = false;
        partlyWritten = false;
        pendingWrites = false;
        carried = false;
        pending.clear();
    }

    /** Whether a payload framed around is held: until TCP took it, its memory is read and its send not complete. */
    @Override
    public boolean holdsPayload() {
        return payloadHeld;
    }

    /** How many writes so far left nothing held: TCP took every payload framed around before them. */
    @Override
    public long releases() {
        return releases;
    }

    /** FPDUs held until {@link #flush} leave in one gathering write. */
    @Override
    public boolean gathers() {
        return true;
    }

    /**
     * Carries the held FPDUs over to the next cycle when a burst of at least {@value #CARRY_MESSAGES} messages framed
     * them all here (none is read where it lies) and the loop can run this stream in every cycle (it tries its streams
     * directly: {@link SelectorPoller#runEachCycle}); otherwise writes them.
     * A carried burst leaves with the next one, when the next FPDU finds the pending buffer full, or in the stream's
     * turn of the next cycle that brings no burst: a request that waits for its answer (a burst of one) is never
     * carried, and nothing waits longer than one cycle after the application stops posting. Owner thread.
     */
    @Override
    public void flush(int messages) {
        if (messages >= CARRY_MESSAGES && !payloadHeld && !pendingWrites && !closing && !down
                && poller.runEachCycle(this)) {
            carried = true;
            return;
        }
        flush();
    }

    /** Writes the held FPDUs (the engine stopped sending for now). Owner thread. */
    @Override
    public void flush() {
        carried = false;
        if (!down && !pendingWrites && held()) {
            writeHeld();
        }
    }

    /** How many writes the stream made to its socket so far. Loop thread, or once it is quiet. */
    long writes() {
        return writes;
    }

    @Override
    public void close() {
        assert poller.loop() == null || poller.loop().inLoop() : "LLP stream called off its loop";
        if (down || closing) {
            return;
        }
        closing = true;
        // RFC 5040 §5.4: closed gracefully, so that a Terminate before it arrives; but not held for ever by a peer
        // that never closes its side (RFC 5044 §8 leaves the stream to be torn down after an error)
        closeCheck = poller.loop().schedule(System.nanoTime() + closeNanos, () -> {
            closeCheck = null;
            lost("the peer did not close its side within " + java.time.Duration.ofNanos(closeNanos).toMillis()
                    + " ms of this side's close (MpaOptions.withCloseTimeout); the connection was reset");
        });
        try {
            if (held() && !pendingWrites) {
                writeOutHere(); // the held FPDUs go before the FIN
                watch();
            }
            if (!held() && !down) {
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
        assert poller.loop() == null || poller.loop().inLoop() : "LLP stream called off its loop";
        if (!down) {
            down = true;
            shut(true);
            LlpSink current = sink;
            if (current != null) {
                current.onClosed(false, "aborted");
            }
        }
    }

    /**
     * Resets the connection if nothing moved either way since the last check, else checks again one idle timeout
     * later: a connection idle for the timeout is noticed within twice that. Loop thread.
     */
    private void checkIdle() {
        if (idleNanos == 0 || down) {
            return;
        }
        if (octetsMoved == octetsAtIdleCheck && writes == writesAtIdleCheck) {
            idleCheck = null;
            lost("idle: nothing sent or received for " + java.time.Duration.ofNanos(idleNanos).toMillis()
                    + " ms (MpaOptions.withIdleTimeout); the connection was reset");
            return;
        }
        octetsAtIdleCheck = octetsMoved;
        writesAtIdleCheck = writes;
        idleCheck = poller.loop().schedule(System.nanoTime() + idleNanos, this::checkIdle);
    }

    /**
     * Resets the connection if it is still in the middle of an FPDU with no octet read since the last look, else
     * looks again one FPDU timeout later while an FPDU is still partial: a peer stopped inside an FPDU for the
     * timeout is noticed within twice that. Loop thread.
     */
    private void checkFpdu() {
        fpduCheck = null;
        if (down || deframer.idle()) {
            return;
        }
        if (octetsRead == octetsReadAtFpduCheck) {
            lost("stopped in the middle of an FPDU: no octet of it for " + java.time.Duration.ofNanos(fpduNanos)
                    .toMillis() + " ms (MpaOptions.withFpduTimeout); the connection was reset");
            return;
        }
        octetsReadAtFpduCheck = octetsRead;
        fpduCheck = poller.loop().schedule(System.nanoTime() + fpduNanos, this::checkFpdu);
    }

    /** Closes the socket (with a reset when {@code reset}), which takes it out of the selector. */
    private void shut(boolean reset) {
        if (idleCheck != null) {
            Deadline.cancelIfSet(idleCheck);
            idleCheck = null;
        }
        Deadline.cancelIfSet(closeCheck);
        closeCheck = null;
        Deadline.cancelIfSet(fpduCheck);
        fpduCheck = null;
        poller.deregister(this);
        release(); // nothing more is written: no payload's memory is read any longer
        tcp.close(reset);
        onShut.accept(this);
    }

    @Override
    public String toString() {
        return name + "[" + (crc ? "CRC" : "no CRC") + (markersOut || markersIn ? ", markers" : "") + tcp.describe()
                + "]" + tcp.from();
    }
}
