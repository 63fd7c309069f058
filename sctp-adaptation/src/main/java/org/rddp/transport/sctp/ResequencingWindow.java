package org.rddp.transport.sctp;

import java.lang.foreign.MemorySegment;
import org.rddp.sctp.DdpSctp;
import org.rddp.wire.Wire;

/**
 * The receive side of RFC 5043 §10 for one DDP stream: every chunk travels unordered (the U bit), and the adaptation
 * puts the chunks back in DDP-SSN order before DDP sees them. A chunk at the expected DDP-SSN is delivered at once,
 * then every held chunk that is now in order; a chunk up to {@value #SIZE} - 1 ahead (RFC 5043 §10: a sender keeps
 * fewer than 32768 chunks of a stream unacknowledged, so no valid DDP-SSN is further ahead) may be held, copied,
 * until its turn (its tagged payload may have been placed already, RFC 5041 §5.3); anything else is refused: a
 * DDP-SSN behind the expected one (a chunk delivered already), or a second copy of one held. DDP-SSNs are 16-bit and
 * wrap. The window starts over at DDP-SSN 0 with each session ({@link #reset}, RFC 5043 §6.1).
 *
 * <p>What it holds is a peer's doing, so every octet of it is taken from a {@link Budget} first (RFC 5043 §10: no
 * resources on the assumption that a DDP-SSN is valid without a check; RFC 5042): the copies, and the slots, which
 * are made on the first chunk that arrives early and grow with the distance ahead, so a stream whose chunks come in
 * order (the common case on one path) costs nothing. Not thread-safe: the stream's loop.
 */
final class ResequencingWindow {
    /** How far ahead of the expected DDP-SSN a chunk may be before it is refused: the RFC's bound. */
    static final int SIZE = DdpSctp.MAX_CHUNKS_IN_FLIGHT_PER_STREAM + 1;
    /** Octets a held chunk takes besides its own: its PPID, and the array it is copied into. */
    static final int COPY_OVERHEAD = 4 + 16;
    /** Octets one slot takes: a reference and whether its payload was placed. */
    static final int SLOT_OCTETS = 8 + 1;
    private static final int FIRST_SLOTS = 16;
    private static final int HALF_SPACE = 0x8000;
    private static final int PPID_LENGTH = 4;
    /** The furthest ahead of its turn any window of the process kept a chunk (diagnostics, as loss tests report). */
    private static final java.util.concurrent.atomic.AtomicInteger FURTHEST = new java.util.concurrent.atomic
            .AtomicInteger();

    /** Where a chunk goes. */
    enum Verdict {
        /** The expected chunk: {@link #deliver} it. */
        DELIVER,
        /** Early, within the window: {@link #hold} it, if the session may hold chunks and the budget allows. */
        HOLD,
        /** Early, but a chunk with this DDP-SSN is held already. */
        DUPLICATE,
        /** Behind the expected DDP-SSN. */
        OUTSIDE
    }

    /** Takes the chunks that come in order from the window. */
    @FunctionalInterface
    interface Delivery {
        /** The chunk of {@code length} octets at {@code chunk} (DDP-SSN first), sent with {@code ppid}. */
        void deliver(int ppid, MemorySegment chunk, int length, boolean payloadPlaced);

        /**
         * Whether held chunks must wait, though in order, until {@link #deliverHeld} (the session was just bound to a
         * queue pair whose engine has not started yet).
         */
        default boolean paused() {
            return false;
        }
    }

    /** Where the octets of what a window holds are counted against their limits. Loop thread. */
    interface Budget {
        /** Takes {@code octets} for something the window is about to keep; false (nothing taken) past a limit. */
        boolean take(long octets);

        /** Returns {@code octets} the window no longer keeps. */
        void give(long octets);
    }

    private final Budget budget;
    private int expected;
    private int generation;
    private byte[][] held;
    private boolean[] placed;
    private int count;
    /** Octets taken from the budget: the copies and the slots. */
    private long taken;

    ResequencingWindow(Budget budget) {
        this.budget = budget;
    }

    /** How far ahead of its turn, in DDP-SSNs, any window of the process kept a chunk so far. Any thread. */
    static int furthestAhead() {
        return FURTHEST.get();
    }

    /** The DDP-SSN the next in-order chunk carries. */
    int expected() {
        return expected;
    }

    /** Chunks held now. */
    int held() {
        return count;
    }

    /** Octets taken from the budget now. */
    long octets() {
        return taken;
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
        return held != null && distance < held.length && held[slot(ssn)] != null ? Verdict.DUPLICATE : Verdict.HOLD;
    }

    /** How far ahead of the expected DDP-SSN {@code ssn} is. */
    int distance(int ssn) {
        return (ssn - expected) & 0xFFFF;
    }

    /**
     * Keeps a copy of the early chunk with DDP-SSN {@code ssn} ({@link Verdict#HOLD}) until its turn, if the budget
     * has room for it (and for the slots to reach it).
     *
     * @return whether it is kept; false: the budget refused it, and nothing changed
     */
    boolean hold(int ssn, int ppid, MemorySegment chunk, long offset, int length, boolean payloadPlaced) {
        int distance = distance(ssn);
        int slots = held == null ? 0 : held.length;
        int needed = slots;
        while (needed <= distance) {
            needed = Math.max(FIRST_SLOTS, needed * 2);
        }
        long cost = COPY_OVERHEAD + (long) length + (long) (needed - slots) * SLOT_OCTETS;
        if (!budget.take(cost)) {
            return false;
        }
        taken += cost;
        if (needed != slots) {
            grow(needed);
        }
        byte[] copy = new byte[PPID_LENGTH + length];
        MemorySegment copied = MemorySegment.ofArray(copy);
        Wire.putU32(copied, 0, ppid);
        MemorySegment.copy(chunk, offset, copied, PPID_LENGTH, length);
        held[slot(ssn)] = copy;
        placed[slot(ssn)] = payloadPlaced;
        count++;
        if (distance > FURTHEST.get()) {
            FURTHEST.accumulateAndGet(distance, Math::max);
        }
        return true;
    }

    /** The held chunk with DDP-SSN {@code ssn} had its payload placed (after {@link #hold}): it says so in its turn. */
    void placed(int ssn) {
        placed[slot(ssn)] = true;
    }

    /**
     * Keeps of every held chunk only its first {@code octets} (its DDP-SSN and function code, say) and gives the rest
     * back: the session is over, and only when the peer's chunks come matters, not what they carry.
     */
    void keepOnly(int octets) {
        if (count == 0) {
            return;
        }
        for (int i = 0; i < held.length; i++) {
            byte[] copy = held[i];
            if (copy != null && copy.length > PPID_LENGTH + octets) {
                held[i] = java.util.Arrays.copyOf(copy, PPID_LENGTH + octets);
                long freed = copy.length - held[i].length;
                taken -= freed;
                budget.give(freed);
            }
        }
    }

    /** Makes room for {@code slots} slots, each held chunk in the slot of its DDP-SSN. */
    private void grow(int slots) {
        byte[][] before = held;
        boolean[] beforePlaced = placed;
        held = new byte[slots][];
        placed = new boolean[slots];
        if (before != null) {
            for (int i = 0; i < before.length; i++) {
                if (before[i] != null) {
                    int ssn = Wire.u16(MemorySegment.ofArray(before[i]), PPID_LENGTH);
                    held[slot(ssn)] = before[i];
                    placed[slot(ssn)] = beforePlaced[i];
                }
            }
        }
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
        deliverHeld(delivery, session);
    }

    /** Delivers the held chunks now in order, unless {@code delivery} is paused (then they wait for the next call). */
    void deliverHeld(Delivery delivery) {
        deliverHeld(delivery, generation);
    }

    private void deliverHeld(Delivery delivery, int session) {
        while (count > 0 && generation == session && !delivery.paused()) {
            int slot = slot(expected);
            byte[] next = held[slot];
            if (next == null) {
                return;
            }
            held[slot] = null;
            count--;
            long cost = COPY_OVERHEAD + next.length - PPID_LENGTH;
            taken -= cost;
            budget.give(cost);
            expected = (expected + 1) & 0xFFFF;
            MemorySegment octets = MemorySegment.ofArray(next);
            delivery.deliver(Wire.u32(octets, 0), octets.asSlice(PPID_LENGTH), next.length - PPID_LENGTH,
                    placed[slot]);
        }
    }

    /** Starts over for a new session: DDP-SSN 0 expected, nothing held, every octet given back. */
    void reset() {
        generation++;
        expected = 0;
        held = null;
        placed = null;
        count = 0;
        if (taken > 0) {
            budget.give(taken);
            taken = 0;
        }
    }

    private int slot(int ssn) {
        return ssn & (held.length - 1);
    }
}
