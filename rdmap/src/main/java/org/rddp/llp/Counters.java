package org.rddp.llp;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Counters in the manner of Aeron's: plain numbers that only grow, bumped where the event happens and read by anyone
 * at any time, never a log. Each connection manager has its own set, counted by the layers that see the event: the
 * transport counts what it refuses and what is malformed, the queue pair Terminates and lost connections. Every count
 * goes to the {@linkplain #process() process's} set as well, which also reads what is the process's alone (loop
 * errors; usrsctp's retransmissions, one stack for the whole process). Thread-safe; counting costs an atomic add per
 * set, and only on the paths of errors and refusals.
 */
public final class Counters {
    private static final Counter[] ALL = Counter.values();
    private static final Counters PROCESS = new Counters(null);

    static {
        PROCESS.supply(Counter.LOOP_ERRORS, org.rddp.loop.Loop::errorsInProcess);
    }

    private final Counters parent;
    private final AtomicLongArray values = new AtomicLongArray(ALL.length);
    private final LongSupplier[] sources = new LongSupplier[ALL.length];

    private Counters(Counters parent) {
        this.parent = parent;
    }

    /** A new set (a connection manager's), whose counts the process's set receives too. */
    public static Counters create() {
        return new Counters(PROCESS);
    }

    /** The process's set: what every set counted, and what only the process counts. */
    public static Counters process() {
        return PROCESS;
    }

    /** Counts one {@code counter}, here and in the process's set. */
    public void increment(Counter counter) {
        values.getAndIncrement(counter.ordinal());
        if (parent != null) {
            parent.increment(counter);
        }
    }

    /** Counts {@code count} more of {@code counter}, here and in the process's set. */
    public void add(Counter counter, long count) {
        values.getAndAdd(counter.ordinal(), count);
        if (parent != null) {
            parent.add(counter, count);
        }
    }

    /**
     * An application's callback threw {@code failure} on the calling (loop) thread: counted as
     * {@link Counter#CALLBACK_FAILURES} and handed to the thread's uncaught-exception handler (by default it prints
     * the stack trace), so that the bug is seen and the loop goes on running the engines it owns.
     */
    public void callbackFailed(RuntimeException failure) {
        increment(Counter.CALLBACK_FAILURES);
        Thread thread = Thread.currentThread();
        thread.getUncaughtExceptionHandler().uncaughtException(thread, failure);
    }

    /**
     * Has {@code counter} read from {@code source} as well (a backend's own statistics, say), added to what was
     * counted here. The process's set does not read a child's sources: supply it there when it is the process's.
     */
    public synchronized void supply(Counter counter, LongSupplier source) {
        LongSupplier before = sources[counter.ordinal()];
        sources[counter.ordinal()] = before == null ? source : () -> before.getAsLong() + source.getAsLong();
    }

    /** The value of {@code counter} now. */
    public long get(Counter counter) {
        LongSupplier source;
        synchronized (this) {
            source = sources[counter.ordinal()];
        }
        return values.get(counter.ordinal()) + (source == null ? 0 : source.getAsLong());
    }

    /** Every counter's value now, in declaration order. */
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> snapshot = new EnumMap<>(Counter.class);
        for (Counter counter : ALL) {
            snapshot.put(counter, get(counter));
        }
        return snapshot;
    }
}
