package org.rddp.llp;

import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpscArrayQueue;

/**
 * One owner thread: runs the tasks handed to it, in order, and parks when there are none. Streams that share an
 * event loop share its thread, so their engines never need a lock. {@link #execute} allocates nothing (the queue
 * is a bounded array); a producer that finds it full waits for room.
 */
public final class EventLoop implements Executor, AutoCloseable {
    private static final int CAPACITY = 1 << 16;

    private final Queue<Runnable> tasks = new MpscArrayQueue<>(CAPACITY);
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean running = true;

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

    /** Whether the caller runs on this loop. */
    public boolean inEventLoop() {
        return Thread.currentThread() == thread;
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
            try {
                task.run();
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e); // one bad task must not stop every stream on the loop
            }
        }
    }

    /** Runs the tasks already handed over, then stops the thread. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        if (!inEventLoop()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
