package org.rddp.testing;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jctools.queues.SpscArrayQueue;
import org.rddp.error.TerminateCause;
import org.rddp.llp.EarlyPlacement;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.LlpSink;
import org.rddp.llp.LlpStream;
import org.rddp.loop.Loop;

/**
 * One end of an in-memory LLP stream pair, for tests of everything above the LLP: two ends in one JVM, each
 * with its own owner thread, segments copied through bounded rings (so a slow receiver back-pressures the
 * sender), allocation-free in steady state. Like an LLP that batches its writes, an end holds what it sends
 * until {@link #flush()} (or {@link #close()}), so every test over it also checks that the engine flushes; it says
 * it {@linkplain #gathers gathers}, as MPA does, unless told to {@linkplain #sendEachAtOnce send each at once}.
 * Injectable faults:
 * <ul>
 * <li>{@link #dropConnection()}: the connection is lost under both ends;</li>
 * <li>{@link #corruptNextSent}: a mutation applied to the next segment this end sends;</li>
 * <li>{@link #inject}: a crafted segment delivered to the peer as if this end had sent it;</li>
 * <li>{@link #reorderTagged}: the receiving end places tagged payload out of order, ahead of delivery, as an
 * LLP with unordered delivery may (RFC 5043 §10);</li>
 * <li>{@link #stall()} / {@link #resume()}: this end stops taking segments in, so the peer backs up.</li>
 * <li>{@link #holdPayloads()}, {@link #stallWrites()} / {@link #takeHeld()} / {@link #releaseWrites()}: this end
 * reads payloads where they lie when it flushes, as MPA does with the large FPDUs it frames around, and can be made
 * to keep them, as a TCP that takes nothing keeps them in MPA's stream.</li>
 * </ul>
 */
public final class InMemoryLlp implements LlpStream {
    private static final int CLOSE = -1;

    /** One segment in flight, or a close marker. */
    private static final class Slot {
        final MemorySegment data;
        int length;
        boolean placed;
        /** With {@link #holdPayloads}: the payload, read where it lies when the slot leaves; null once copied. */
        MemorySegment payload;
        int headerLength;

        Slot(int capacity) {
            data = MemorySegment.ofArray(new byte[capacity]);
        }
    }

    private final Loop loop;
    private final LlpParameters parameters;
    private final int mulpdu;
    private final Queue<Slot> free;
    private final Queue<Slot> inbound;
    private final Slot closeMarker = new Slot(0);
    private final ArrayDeque<Slot> window = new ArrayDeque<>();
    private final ArrayDeque<Slot> held = new ArrayDeque<>();
    private final EarlyPlacement early = new EarlyPlacement();
    private final AtomicBoolean deliveryScheduled = new AtomicBoolean();
    private final Runnable deliverTask = () -> {
        deliveryScheduled.set(false);
        deliver();
    };
    private final Runnable writableTask = this::writable;
    private InMemoryLlp peer;
    private LlpSink sink;
    private volatile boolean pressured;
    private volatile boolean stalled;
    private volatile boolean reorderTagged;
    private volatile Consumer<MemorySegment> corruption;
    private boolean outputClosed;
    private boolean inputClosed;
    private volatile boolean down;
    private boolean reported;
    private String lostReason;
    private long segmentsSent;
    private long writes;
    private volatile boolean gathers = true;
    private final java.util.List<Integer> bursts = new java.util.ArrayList<>();
    private volatile boolean holdPayloads;
    private volatile boolean writesStalled;
    private int heldPayloads;
    private long releases;
    private volatile java.util.function.IntSupplier packetRoom;

    private InMemoryLlp(Loop loop, LlpParameters parameters, int mulpdu, int capacity) {
        this.loop = loop;
        this.parameters = parameters;
        this.mulpdu = mulpdu;
        this.free = new SpscArrayQueue<>(capacity);
        this.inbound = new SpscArrayQueue<>(capacity + 1);
        for (int i = 0; i < capacity; i++) {
            free.offer(new Slot(mulpdu));
        }
    }

    /**
     * Two connected ends, each on its own loop.
     *
     * @param mulpdu   the largest segment either end accepts
     * @param capacity segments in flight per direction before the sender is back-pressured
     */
    public static InMemoryLlp[] pair(Loop loopA, LlpParameters a, Loop loopB, LlpParameters b, int mulpdu,
            int capacity) {
        InMemoryLlp endA = new InMemoryLlp(loopA, a, mulpdu, capacity);
        InMemoryLlp endB = new InMemoryLlp(loopB, b, mulpdu, capacity);
        endA.peer = endB;
        endB.peer = endA;
        return new InMemoryLlp[] {endA, endB};
    }

    @Override
    public LlpParameters parameters() {
        return parameters;
    }

    @Override
    public int mulpdu() {
        return mulpdu;
    }

    @Override
    public void start(LlpSink newSink) {
        sink = Objects.requireNonNull(newSink); // on the loop: a fault queued behind the start finds the sink
        if (lostReason != null) {
            report(lostReason); // lost before the engine took the stream: it still hears of it
            return;
        }
        deliver();
        if (lostReason != null) {
            report(lostReason); // lost before the engine took the stream: it still hears of it
            return;
        }
        deliver();
    }

    @Override
    public int send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
            long payloadOffset, int payloadLength) {
        if (headerLength + payloadLength > mulpdu) {
            throw new IllegalArgumentException("segment of " + (headerLength + payloadLength)
                    + " octets exceeds MULPDU " + mulpdu);
        }
        if (down || outputClosed) {
            return CLOSED;
        }
        if (writesStalled && !held.isEmpty()) {
            pressured = true; // as MPA's stream behind what TCP did not take: room comes with releaseWrites()
            return BACK_PRESSURED;
        }
        Slot slot = peer.free.poll();
        if (slot == null) {
            pressured = true;
            slot = peer.free.poll(); // the receiver may have freed one between the two looks
            if (slot == null) {
                return BACK_PRESSURED;
            }
            pressured = false;
        }
        MemorySegment.copy(header, headerOffset, slot.data, 0, headerLength);
        slot.length = headerLength + payloadLength;
        slot.placed = false;
        slot.headerLength = headerLength;
        if (holdPayloads && payloadLength > 0) {
            slot.payload = payload.asSlice(payloadOffset, payloadLength);
            heldPayloads++;
        } else {
            MemorySegment.copy(payload, payloadOffset, slot.data, headerLength, payloadLength);
            mutate(slot);
        }
        segmentsSent++;
        held.add(slot);
        return SENT;
    }

    private void mutate(Slot slot) {
        Consumer<MemorySegment> mutation = corruption;
        if (mutation != null) {
            corruption = null;
            mutation.accept(slot.data.asSlice(0, slot.length));
        }
    }

    /**
     * Sends what {@link #send} held, reading the held payloads now; with {@link #stallWrites} it keeps them all. A
     * payload whose memory fails drops everything held, and the failure goes up, as from MPA's stream.
     */
    @Override
    @SuppressWarnings("checkstyle:IllegalCatch") // rethrown, once nothing is held
    public void flush() {
        if (writesStalled || held.isEmpty()) {
            return;
        }
        writes++;
        try {
            for (Slot slot : held) {
                if (slot.payload != null) {
                    MemorySegment.copy(slot.payload, 0, slot.data, slot.headerLength, slot.payload.byteSize());
                    slot.payload = null;
                    mutate(slot);
                }
            }
        } catch (RuntimeException e) {
            for (Slot slot = held.poll(); slot != null; slot = held.poll()) {
                slot.payload = null;
                peer.free.offer(slot);
            }
            heldPayloads = 0;
            throw e;
        }
        heldPayloads = 0;
        releases++;
        for (Slot slot = held.poll(); slot != null; slot = held.poll()) {
            peer.receive(slot);
        }
    }

    /** Flushes as {@link #flush()}, and keeps the length of the burst the engine says it ended ({@link #bursts}). */
    @Override
    public void flush(int messages) {
        bursts.add(messages);
        flush();
    }

    /** The burst lengths the engine gave its flushes, in order. Owner thread, or once it is quiet. */
    public java.util.List<Integer> bursts() {
        return bursts;
    }

    /** How many flushes sent everything held. */
    @Override
    public long releases() {
        return releases;
    }

    /** Whether this end holds payloads it has not read yet ({@link #holdPayloads}). */
    @Override
    public boolean holdsPayload() {
        return heldPayloads > 0;
    }

    /** From now on this end keeps a view of each payload and reads it when it flushes. Before the stream starts. */
    public void holdPayloads() {
        holdPayloads = true;
    }

    /** This end's flushes keep what is held, and sends push back, until {@link #releaseWrites()}. */
    public void stallWrites() {
        writesStalled = true;
    }

    /**
     * Ends {@link #stallWrites()}: the sink hears that there is room, and its next flush sends what is held (as MPA's
     * stream does once TCP takes what it kept). Any thread.
     */
    public void releaseWrites() {
        loop.execute(() -> {
            writesStalled = false;
            pressured = false;
            writable();
        });
    }

    /**
     * While {@link #stallWrites stalled}: sends what is held now, as TCP taking what MPA's stream kept, and tells the
     * sink there is room; what is sent after that is kept again. Any thread.
     */
    public void takeHeld() {
        loop.execute(() -> {
            writesStalled = false;
            flush();
            writesStalled = true;
            pressured = false;
            writable();
        });
    }

    /** Its MULPDU, as a stream that never packs segments into shared packets, unless a test said otherwise. */
    @Override
    public int packetRoom() {
        java.util.function.IntSupplier room = packetRoom;
        return room == null ? mulpdu : room.getAsInt();
    }

    /** This end reports what {@code room} says as its {@linkplain #packetRoom packet room}, asked on its loop. */
    public void packetRoom(java.util.function.IntSupplier room) {
        packetRoom = room;
    }

    /** As MPA's stream, unless a test said otherwise ({@link #sendEachAtOnce}). */
    @Override
    public boolean gathers() {
        return gathers;
    }

    /** This end says it does not {@linkplain #gathers gather}, as an SCTP session: posts to it run at once. */
    public void sendEachAtOnce() {
        gathers = false;
    }

    private void receive(Slot slot) {
        inbound.offer(slot);
        if (deliveryScheduled.compareAndSet(false, true)) {
            loop.execute(deliverTask);
        }
    }

    private void deliver() {
        if (sink == null || stalled) {
            return;
        }
        if (reorderTagged) {
            for (Slot slot = inbound.poll(); slot != null; slot = inbound.poll()) {
                window.add(slot);
            }
            placeEarly();
            for (Slot slot = window.poll(); slot != null && !down; slot = window.poll()) {
                handle(slot);
            }
            return;
        }
        for (Slot slot = inbound.poll(); slot != null && !down; slot = inbound.poll()) {
            handle(slot);
        }
    }

    /** Places the tagged payload of later segments first: the reverse of the order they were sent in. */
    private void placeEarly() {
        var descending = window.descendingIterator();
        while (descending.hasNext()) {
            Slot slot = descending.next();
            if (slot.length > 0 && early.place(sink, slot.data, 0, slot.length)) {
                slot.placed = true;
            }
        }
    }

    private void handle(Slot slot) {
        if (slot == closeMarker) {
            inputClosed = true;
            if (!outputClosed) {
                close(); // the peer's FIN: the in-memory LLP answers with its own, TCP-style
            }
            closedIfBoth();
            return;
        }
        if (inputClosed) {
            return;
        }
        sink.onSegment(slot.data, 0, slot.length, slot.placed);
        free.offer(slot); // slots of the direction towards this end live here; the peer takes them to send
        if (peer.pressured) {
            peer.pressured = false;
            peer.loop.execute(peer.writableTask);
        }
    }

    private void writable() {
        if (sink != null && !down) {
            sink.onWritable();
        }
    }

    /** The loop this end lives on. */
    public Loop loop() {
        return loop;
    }

    @Override
    public void close() {
        if (outputClosed || down) {
            return;
        }
        flush();
        outputClosed = true;
        peer.receive(peer.closeMarkerFor());
        closedIfBoth();
    }

    private Slot closeMarkerFor() {
        closeMarker.length = CLOSE;
        return closeMarker;
    }

    private void closedIfBoth() {
        if (outputClosed && inputClosed && !reported && !down) {
            reported = true;
            sink.onClosed(true, "closed gracefully");
        }
    }

    @Override
    public void abort() {
        lose("aborted by the peer", "aborted");
    }

    /** Fault: the connection is lost under both ends; neither delivers anything more. */
    public void dropConnection() {
        lose("connection lost", "connection lost");
    }

    private void lose(String peerReason, String ownReason) {
        peer.goDown(peerReason);
        goDown(ownReason);
    }

    private void goDown(String reason) {
        down = true;
        loop.execute(() -> {
            if (lostReason == null) {
                lostReason = reason;
                if (sink != null) {
                    report(reason);
                }
            }
        });
    }

    private void report(String reason) {
        if (!reported) {
            reported = true;
            sink.onClosed(false, reason);
        }
    }

    /** Fault: {@code mutation} is applied to the next segment this end sends (it sees just that segment). */
    public void corruptNextSent(Consumer<MemorySegment> mutation) {
        corruption = mutation;
    }

    /** Fault: {@code segment} reaches the peer as the next segment from this end. Any thread. */
    public void inject(byte[] segment) {
        loop.execute(() -> {
            MemorySegment octets = MemorySegment.ofArray(segment);
            int outcome = send(octets, 0, segment.length, octets, 0, 0);
            if (outcome != SENT) {
                throw new IllegalStateException("could not inject: " + outcome);
            }
            flush();
        });
    }

    /** Fault: this end's LLP reports an error it has a Terminate cause for (an MPA CRC error, say). */
    public void reportLlpError(TerminateCause cause, String detail) {
        loop.execute(() -> sink.onLlpError(cause, detail));
    }

    /** Fault: this end places tagged payload out of order before delivering segments in order. */
    public void reorderTagged(boolean on) {
        reorderTagged = on;
    }

    /** Fault: this end stops taking segments in. */
    public void stall() {
        stalled = true;
    }

    /** Ends a {@link #stall()}. */
    public void resume() {
        stalled = false;
        loop.execute(deliverTask);
    }

    /** Segments this end sent, for tests; read on the owner thread or after it is quiet. */
    public long segmentsSent() {
        return segmentsSent;
    }

    /** Flushes that carried segments: the writes an LLP that gathers would make. Owner thread, as above. */
    public long writes() {
        return writes;
    }
}
