package org.rddp.llp;

import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpscArrayQueue;

/**
 * One owner: runs the tasks handed to it, in order, and parks when there are none. Streams that share an event
 * loop share its ownership, so their engines never need a lock. {@link #execute} allocates nothing (the queue is
 * a bounded array); a producer that finds it full waits for room.
 *
 * <p>Ownership is a token, held by the loop's thread while it runs tasks. Another thread may borrow the token
 * when nobody holds it ({@link #tryRun}) and run an idempotent piece of work inline, such as draining a send
 * queue right after a post, or polling a socket while a consumer waits on its completion queue: that saves the
 * wake-up of a parked thread, which costs more than the work on a request/response path.
 */
public final class EventLoop implements Executor, AutoCloseable {
    private static final int CAPACITY = 1 << 16;
    private static final int SPINS_BEFORE_PARKING = 1 << 10;

    private final Queue<Runnable> tasks = new MpscArrayQueue<>(CAPACITY);
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final Thread thread;
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile boolean loopWaiting;

    /** Starts the loop's thread, a daemon named {@code name}. */
    public EventLoop(String name) {
        thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
        thread.start();
    }

    @Override
    public void execute(Runnable task) {
        while (!tasks.offer(task)) {
            if (!running) {
                throw new IllegalStateException("event loop " + thread.getName() + " is closed");
            }
            Thread.onSpinWait();
        }
        LockSupport.unpark(thread);
    }

    /** Whether the caller holds this loop's ownership (its thread running a task, or a borrower). */
    public boolean inEventLoop() {
        return owner.get() == Thread.currentThread();
    }

    /**
     * Runs {@code work} on the calling thread if nobody owns the loop right now, holding the ownership while it
     * runs; returns false, without running it, otherwise. {@code work} must be fine to run again later (the
     * loop may have it queued too). Allocates nothing.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // a bug in the work is recorded as the loop records its own
    public boolean tryRun(Runnable work) {
        Thread self = Thread.currentThread();
        if (self == thread || !owner.compareAndSet(null, self)) {
            return false;
        }
        try {
            work.run();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        } finally {
            owner.set(null);
            if (loopWaiting || !tasks.isEmpty()) {
                LockSupport.unpark(thread); // the loop thread waits for the ownership, or has tasks to take
            }
        }
        return true;
    }

    /** The first exception a task threw, or {@code null}: a bug, kept for tests and diagnostics. */
    public RuntimeException failure() {
        return failure.get();
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // a task's bug is recorded, not allowed to kill the loop
    private void run() {
        while (running || !tasks.isEmpty()) {
            Runnable task = tasks.poll();
            if (task == null) {
                LockSupport.park(this);
                continue;
            }
            for (int spins = 0; !owner.compareAndSet(null, thread); spins++) {
                // a borrower runs a piece of work inline: wait a little (most borrows are a few microseconds, and
                // parking makes the borrower pay a wake-up), then sleep until it gives the ownership back rather
                // than spin on a CPU it may need (with two cores, it does)
                if (spins < SPINS_BEFORE_PARKING) {
                    Thread.onSpinWait();
                    continue;
                }
                loopWaiting = true;
                if (owner.get() != null) {
                    LockSupport.park(this);
                }
                loopWaiting = false;
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e); // one bad task must not stop every stream on the loop
            } finally {
                owner.set(null);
            }
        }
    }

    /** Runs the tasks already handed over, then stops the thread. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
