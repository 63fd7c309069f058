package org.rddp.verbs;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The process's counters, in the manner of Aeron's: plain numbers that only grow, bumped where the event happens and
 * read by anyone at any time, never a log. Transports count what they refuse and what is malformed; the verbs count
 * Terminates and lost connections; a backend that keeps its own statistics (usrsctp) supplies them. Thread-safe;
 * counting costs an atomic add, and only on the paths of errors and refusals.
 */
public final class Counters {
    private static final Counter[] ALL = Counter.values();
    private static final AtomicLongArray VALUES = new AtomicLongArray(ALL.length);
    private static final LongSupplier[] SOURCES = new LongSupplier[ALL.length];

    static {
        SOURCES[Counter.LOOP_ERRORS.ordinal()] = org.rddp.loop.Loop::errorsInProcess;
    }

    private Counters() {
    }

    /** Counts one {@code counter}. */
    public static void increment(Counter counter) {
        VALUES.getAndIncrement(counter.ordinal());
    }

    /**
     * An application's callback threw {@code failure} on the calling (loop) thread: counted as
     * {@link Counter#CALLBACK_FAILURES} and handed to the thread's uncaught-exception handler (by default it prints
     * the stack trace), so that the bug is seen and the loop goes on running the engines it owns.
     */
    public static void callbackFailed(RuntimeException failure) {
        increment(Counter.CALLBACK_FAILURES);
        Thread thread = Thread.currentThread();
        thread.getUncaughtExceptionHandler().uncaughtException(thread, failure);
    }

    /**
     * Has {@code counter} read from {@code source} as well (a backend's own statistics, say), added to what was
     * counted here.
     */
    public static synchronized void supply(Counter counter, LongSupplier source) {
        LongSupplier before = SOURCES[counter.ordinal()];
        SOURCES[counter.ordinal()] = before == null ? source : () -> before.getAsLong() + source.getAsLong();
    }

    /** The value of {@code counter} now. */
    public static long get(Counter counter) {
        LongSupplier source;
        synchronized (Counters.class) {
            source = SOURCES[counter.ordinal()];
        }
        return VALUES.get(counter.ordinal()) + (source == null ? 0 : source.getAsLong());
    }

    /** Every counter's value now, in declaration order. */
    public static Map<Counter, Long> snapshot() {
        Map<Counter, Long> values = new EnumMap<>(Counter.class);
        for (Counter counter : ALL) {
            values.put(counter, get(counter));
        }
        return values;
    }
}
