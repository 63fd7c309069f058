package org.rddp.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.rddp.engine.SendWork;

/**
 * A queue pair's send queue (RDMAC verbs' SQ): a ring of reusable work slots that are posted, taken by the engine and
 * completed in one order, the send-queue order RFC 5040 §5.5 completes work in. Any thread posts; one thread at a time
 * takes and completes (the engine's loop, or whoever flushes once the engine no longer sends: {@link QueuePair}).
 *
 * <p>Three counters of slots, each only growing: {@code tail}, the slots claimed by posters (one compare-and-set a
 * post); {@code head}, those the engine took; {@code freed}, those whose work completed and which may be
 * posted again. A poster fills a claimed slot, then publishes it by storing its sequence number into
 * {@code published}; the engine takes a slot only once it is published, so a poster that claimed a slot and has not
 * filled it yet holds up those after it, never shows them out of order. The slot for sequence {@code n} is
 * {@code n & mask}; a post finds the queue full when {@code depth} slots are claimed and not yet freed, so a slot is
 * claimed again only after its last work completed. Replaces a queue of free slots and a queue of posted ones, which
 * cost a post two compare-and-sets: posting fell from 14-18 % of a 64-octet RDMA Write sender's time to 7-9 %.
 */
final class SendQueue {
    private static final VarHandle TAIL;
    private static final VarHandle FREED;
    private static final VarHandle PUBLISHED = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(SendQueue.class, "tail", long.class);
            FREED = lookup.findVarHandle(SendQueue.class, "freed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final SendWork[] slots;
    /** Sequence number of the work each slot holds once posted; {@code -1} before its first post. */
    private final long[] published;
    private final int mask;
    /** Slots claimed and not yet freed, at most: the queue pair's maximum of outstanding send work requests. */
    private final int depth;
    /** Slots claimed by posters. Any thread, through {@link #TAIL}. */
    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;
    /** Slots taken by the consumer. The consumer's alone. */
    private long head;
    /** Slots completed and free to post again. Written by the consumer, read by posters, through {@link #FREED}. */
    @SuppressWarnings("unused") // through FREED
    private volatile long freed;

    /** A queue of {@code depth} work requests (0: every post finds it full), its slots made by {@code slot}. */
    SendQueue(int depth, java.util.function.Supplier<SendWork> slot) {
        if (depth < 0) {
            throw new IllegalArgumentException("a send queue cannot hold " + depth + " work requests");
        }
        int size = depth <= 1 ? 1 : Integer.highestOneBit(depth - 1) << 1;
        this.depth = depth;
        this.mask = size - 1;
        this.slots = new SendWork[size];
        this.published = new long[size];
        for (int i = 0; i < size; i++) {
            slots[i] = slot.get();
            published[i] = -1;
        }
    }

    /**
     * Claims a slot for a poster, who fills it ({@link #slot}) and then {@linkplain #publish publishes} it. Any thread.
     *
     * @return its sequence number, or {@code -1} when the queue is full
     */
    long claim() {
        while (true) {
            long next = (long) TAIL.getVolatile(this);
            if (next - (long) FREED.getAcquire(this) >= depth) {
                return -1;
            }
            if (TAIL.compareAndSet(this, next, next + 1)) {
                return next;
            }
        }
    }

    /** The slot of sequence number {@code sequence}, claimed by the caller. */
    SendWork slot(long sequence) {
        return slots[(int) sequence & mask];
    }

    /** Shows the filled slot of {@code sequence} to the consumer. The thread that claimed it. */
    void publish(long sequence) {
        PUBLISHED.setRelease(published, (int) sequence & mask, sequence);
    }

    /** The next posted work in order, or {@code null}. The consumer. */
    SendWork take() {
        long next = head;
        int index = (int) next & mask;
        if ((long) PUBLISHED.getAcquire(published, index) != next) {
            return null;
        }
        head = next + 1;
        return slots[index];
    }

    /**
     * Gives back the slot of {@code work}, which must be the oldest taken and not yet freed: send work completes in
     * send-queue order. The consumer.
     *
     * @throws IllegalStateException if it is not: the engine completed out of order, a bug
     */
    void free(SendWork work) {
        long oldest = (long) FREED.getOpaque(this);
        if (oldest == head || slots[(int) oldest & mask] != work) {
            throw new IllegalStateException("send work completed out of send-queue order");
        }
        FREED.setRelease(this, oldest + 1);
    }
}
