package org.rddp.loop;

import java.util.function.Supplier;

/**
 * How a connection manager's loops are driven, chosen once, when the manager is made (as libfabric's progress
 * models: automatic or manual). Automatic: each loop has a thread of its own. Manual: the thread that makes the
 * manager drives its one loop, whenever it polls or waits on a completion queue of the manager's queue pairs, or
 * joins a future with {@link Loop#join}; nothing moves while it does not.
 */
public final class Progress {
    private final int loops;
    private final IdleStrategy idle;
    private final boolean manual;
    private final ErrorHandler errorHandler;

    private Progress(int loops, IdleStrategy idle, boolean manual, ErrorHandler errorHandler) {
        if (loops < 1) {
            throw new IllegalArgumentException("at least one loop, not " + loops);
        }
        this.loops = loops;
        this.idle = idle;
        this.manual = manual;
        this.errorHandler = java.util.Objects.requireNonNull(errorHandler, "errorHandler");
    }

    /** One loop with its own thread, blocking when idle: the default. */
    public static Progress automatic() {
        return new Progress(1, IdleStrategy.BLOCKING, false, ErrorHandler.LOGGING);
    }

    /** {@code loops} loops, each with its own thread, idling as {@code idle} says. */
    public static Progress automatic(int loops, IdleStrategy idle) {
        return new Progress(loops, idle, false, ErrorHandler.LOGGING);
    }

    /** One loop driven by the thread that makes the manager: it polls its own sockets. */
    public static Progress manual() {
        return new Progress(1, IdleStrategy.BLOCKING, true, ErrorHandler.LOGGING);
    }

    /**
     * The same progress, its loops reporting what they survive (a stream's failure, a bug) to {@code handler}
     * instead of logging it ({@link ErrorHandler#LOGGING}).
     */
    public Progress withErrorHandler(ErrorHandler handler) {
        return new Progress(loops, idle, manual, handler);
    }

    /** What the loops report their errors to. */
    public ErrorHandler errorHandler() {
        return errorHandler;
    }

    /** How many loops. */
    public int loops() {
        return loops;
    }

    /** How an automatic loop's thread idles. */
    public IdleStrategy idle() {
        return idle;
    }

    /** Whether the application thread drives the loop. */
    public boolean isManual() {
        return manual;
    }

    @Override
    public String toString() {
        return manual ? "manual" : "automatic(" + loops + ", " + idle + ")";
    }

    /** Makes the loops, named {@code name} (with an index when several), each with a poller from {@code pollers}. */
    public Loop[] open(String name, Supplier<? extends Poller> pollers) {
        Loop[] made = new Loop[loops];
        for (int i = 0; i < loops; i++) {
            String loopName = loops == 1 ? name : name + "-" + i;
            made[i] = manual ? Loop.manual(loopName, pollers.get(), errorHandler)
                    : Loop.start(loopName, pollers.get(), idle, errorHandler);
        }
        return made;
    }
}
