package org.rddp.cli;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.rddp.loop.Loop;
import org.rddp.verbs.ConnectionManager;

/**
 * How a command's thread waits: where its connection manager's loop is manual (the command's own thread drives it,
 * as perftest's threads poll their own device) every wait runs that loop, blocking in its poller rather than on a
 * timer; with a loop of its own thread, waits are plain.
 */
public final class Driver {
    /** Waits without a loop to drive. */
    public static final Driver NONE = new Driver(null);

    private final Loop loop;

    private Driver(Loop loop) {
        this.loop = loop;
    }

    /** The driver of the calling thread for {@code manager}: its manual loop if this thread drives it. */
    public static Driver of(ConnectionManager manager) {
        for (Loop loop : manager.loops()) {
            if (loop.manual() && loop.inLoop()) {
                return new Driver(loop);
            }
        }
        return NONE;
    }

    /** The driver of {@code loop}, a manual loop of the calling thread's (or null: none). */
    public static Driver of(Loop loop) {
        return loop != null && loop.manual() && loop.inLoop() ? new Driver(loop) : NONE;
    }

    /** The loop it drives, or null. */
    public Loop loop() {
        return loop;
    }

    /** Waits up to {@code timeout} for {@code future}, driving the loop meanwhile. */
    public <T> T await(CompletableFuture<T> future, Duration timeout)
            throws ExecutionException, TimeoutException, InterruptedException {
        return loop == null ? future.get(timeout.toNanos(), TimeUnit.NANOSECONDS) : loop.join(future, timeout);
    }

    /** The next element of {@code queue} within {@code timeout}, or null; the loop runs meanwhile. */
    public <T> T poll(BlockingQueue<T> queue, Duration timeout) throws InterruptedException {
        return loop == null ? queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS)
                : Loop.pollOwned(queue, timeout.toNanos()); // the loop is this thread's own
    }

    /** Adds to {@code queue} and wakes the loop that may wait for it in {@link #poll}. Any thread. */
    public <T> Consumer<T> adder(BlockingQueue<T> queue) {
        return element -> {
            queue.add(element);
            if (loop != null) {
                loop.wakeup();
            }
        };
    }

    /** One step of a busy wait: a duty cycle of the loop, or a spin hint. */
    public void spin() {
        if (loop != null) {
            loop.invoke();
        } else {
            Thread.onSpinWait();
        }
    }

    /** One step of a sleeping wait of at most {@code nanos}: the loop blocks in its poller, else the thread parks. */
    public void nap(long nanos) {
        if (loop != null) {
            loop.idle(nanos);
        } else {
            LockSupport.parkNanos(nanos);
        }
    }
}
