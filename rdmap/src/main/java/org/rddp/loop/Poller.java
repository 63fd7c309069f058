package org.rddp.loop;

/**
 * The I/O a {@link Loop} owns: a transport's multiplexer over its sockets. The loop calls {@link #poll} once per
 * duty cycle and {@link #await} when it idles; any thread may call {@link #wakeup}.
 */
public interface Poller {
    /**
     * Does the I/O that is ready now, without blocking, and runs what it feeds (the engines). Loop thread.
     *
     * @return the work done, 0 if there was none
     */
    int poll();

    /**
     * Blocks until I/O may be ready, {@link #wakeup()} is called, or {@code timeoutNanos} pass (negative: no
     * limit). A wake-up that came before the call makes it return at once. Loop thread.
     */
    void await(long timeoutNanos);

    /** Makes the current or the next {@link #await} return. Any thread; cheap when repeated. */
    void wakeup();

    /** Releases the multiplexer; called once, on the loop thread, when the loop ends. */
    void close();

    /**
     * Tells the poller the loop that owns it, once, as the loop is made: a poller that runs handlers of its own
     * catches what one throws, ends that handler's stream, and {@linkplain Loop#reportError reports} it there.
     */
    default void ownedBy(Loop loop) {
        // a poller without handlers of its own has nothing to report
    }

    /** A poller with no I/O of its own: it parks, for loops that only run commands (in-memory transports). */
    static Poller parking() {
        return new ParkingPoller();
    }
}
