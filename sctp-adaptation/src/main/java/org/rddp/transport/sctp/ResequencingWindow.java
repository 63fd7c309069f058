package org.rddp.transport.sctp;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.Wire;

/**
 * The receive side of RFC 5043 §10 for one DDP stream: every chunk travels unordered (the U bit), and the adaptation
 * puts the chunks back in DDP-SSN order before DDP sees them. A chunk at the expected DDP-SSN is delivered at once,
 * then every held chunk that is now in order; a chunk up to {@value #SIZE} - 1 ahead is held, copied, until its turn
 * (its tagged payload may have been placed already, RFC 5041 §5.3); anything else is refused: a DDP-SSN behind the
 * expected one (a chunk delivered already), one too far ahead, or a second copy of one held. DDP-SSNs are 16-bit and
 * wrap. The window starts over at DDP-SSN 0 with each session ({@link #reset}, RFC 5043 §6.1).
 *
 * <p>The slots are made on the first chunk that arrives early: a stream whose chunks come in order (the common case
 * on one path) costs no memory for them. Not thread-safe: the stream's loop.
 */
final class ResequencingWindow {
    /** How far ahead of the expected DDP-SSN a chunk may be before it is refused. */
    static final int SIZE = 1024;
    private static final int HALF_SPACE = 0x8000;
    private static final int PPID_LENGTH = 4;

    /** Where a chunk goes. */
    enum Verdict {
        /** The expected chunk: {@link #deliver} it. */
        DELIVER,
        /** Early, within the window: {@link #hold} it. */
        HOLD,
        /** Early, but a chunk with this DDP-SSN is held already. */
        DUPLICATE,
        /** Behind the expected DDP-SSN, or beyond the window. */
        OUTSIDE
    }

    /** Takes the chunks that come in order from the window. */
    @FunctionalInterface
    interface Delivery {
        /** The chunk of {@code length} octets at {@code chunk} (DDP-SSN first), sent with {@code ppid}. */
        void deliver(int ppid, MemorySegment chunk, int length, boolean payloadPlaced);
    }

    private int expected;
    private int generation;
    private byte[][] held;
    private boolean[] placed;

    /** The DDP-SSN the next in-order chunk carries. */
    int expected() {
        return expected;
    }

    /** Where the chunk with DDP-SSN {@code ssn} goes. */
    Verdict classify(int ssn) {
        int distance = (ssn - expected) & 0xFFFF;
        if (distance == 0) {
            return Verdict.DELIVER;
        }
        if (distance >= HALF_SPACE || distance >= SIZE) {
            return Verdict.OUTSIDE;
        }
        return held != null && held[slot(ssn)] != null ? Verdict.DUPLICATE : Verdict.HOLD;
    }

    /** Keeps a copy of the early chunk with DDP-SSN {@code ssn} ({@link Verdict#HOLD}) until its turn. */
    void hold(int ssn, int ppid, MemorySegment chunk, long offset, int length, boolean payloadPlaced) {
        if (held == null) {
            held = new byte[SIZE][];
            placed = new boolean[SIZE];
        }
        byte[] copy = new byte[PPID_LENGTH + length];
        MemorySegment copied = MemorySegment.ofArray(copy);
        Wire.putU32(copied, 0, ppid);
        MemorySegment.copy(chunk, offset, copied, PPID_LENGTH, length);
        held[slot(ssn)] = copy;
        placed[slot(ssn)] = payloadPlaced;
    }

    /**
     * Delivers the expected chunk ({@link Verdict#DELIVER}), of {@code length} octets at the start of {@code chunk},
     * then every held chunk now in order. Stops when {@code delivery} starts the window over (a chunk that ended the
     * session): the next session's chunks start again at DDP-SSN 0.
     */
    void deliver(int ppid, MemorySegment chunk, int length, Delivery delivery) {
        int session = generation;
        delivery.deliver(ppid, chunk, length, false);
        if (generation != session) {
            return;
        }
        expected = (expected + 1) & 0xFFFF;
        while (held != null && generation == session) {
            int slot = slot(expected);
            byte[] next = held[slot];
            if (next == null) {
                return;
            }
            held[slot] = null;
            expected = (expected + 1) & 0xFFFF;
            MemorySegment octets = MemorySegment.ofArray(next);
            delivery.deliver(Wire.u32(octets, 0), octets.asSlice(PPID_LENGTH), next.length - PPID_LENGTH,
                    placed[slot]);
        }
    }

    /** Starts over for a new session: DDP-SSN 0 expected, nothing held. */
    void reset() {
        generation++;
        expected = 0;
        if (held != null) {
            java.util.Arrays.fill(held, null);
        }
    }

    private static int slot(int ssn) {
        return ssn % SIZE;
    }
}
