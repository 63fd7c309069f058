package org.rddp.loop;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jctools.queues.MpscArrayQueue;

/**
 * A loop: one owner thread that runs a duty cycle over the I/O its {@link Poller} owns and the streams on it, as an
 * Aeron agent does. One cycle runs the commands other threads queued ({@link #execute}), in order, then the I/O that
 * is ready ({@link Poller#poll}), and returns the work done.
 *
 * <p>Who drives it is fixed when it is made, and never changes:
 * <ul>
 * <li>{@link #start}: its own thread runs cycles, idling as its {@link IdleStrategy} says between cycles that found
 * nothing to do (blocking in the poller, woken by I/O or by a queued command);</li>
 * <li>{@link #manual}: the thread that makes it runs cycles itself, with {@link #invoke()} (a completion queue does
 * so when that thread polls it), {@link #idle(long)} (blocking in the poller, as a wait on a completion queue does)
 * and {@link #join}; nothing runs while that thread does not.</li>
 * </ul>
 * Engine code runs only on the owner thread; every other thread queues commands, which cost no allocation.
 */
public final class Loop implements Executor, AutoCloseable {
    private static final int CAPACITY = 1 << 16;
    private static final Loop[] NONE = new Loop[0];
    /** The manual loops each thread made and has not closed: that thread, and only it, drives them. */
    private static final ThreadLocal<Loop[]> OWNED = ThreadLocal.withInitial(() -> NONE);

    private final String name;
    private final Poller poller;
    private final Queue<Runnable> commands = new MpscArrayQueue<>(CAPACITY);
    private final Thread owner;
    private final boolean manual;
    private final IdleStrategy idle;
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile boolean sleeping;
    private boolean finished;
    private int depth;

    private Loop(String name, Poller poller, IdleStrategy idle, boolean manual) {
        this.name = name;
        this.poller = poller;
        this.idle = idle;
        this.manual = manual;
        this.owner = manual ? Thread.currentThread()
                : Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
    }

    /** A loop driven by a thread of its own, a daemon named {@code name}, idling as {@code idle} says. */
    public static Loop start(String name, Poller poller, IdleStrategy idle) {
        Loop loop = new Loop(name, poller, idle, false);
        loop.owner.start();
        return loop;
    }

    /**
     * A loop driven by the calling thread: it runs only while this thread invokes it, which a poll of, or a wait on,
     * any completion queue on this thread does ({@link #invokeOwned()}, {@link #idleOwned(long)}).
     */
    public static Loop manual(String name, Poller poller) {
        Loop loop = new Loop(name, poller, IdleStrategy.BLOCKING, true);
        Loop[] owned = OWNED.get();
        Loop[] more = java.util.Arrays.copyOf(owned, owned.length + 1);
        more[owned.length] = loop;
        OWNED.set(more);
        return loop;
    }

    /** The manual loops the calling thread drives. Allocates nothing. */
    public static Loop[] ownedByCurrentThread() {
        return OWNED.get();
    }

    /**
     * Runs one duty cycle of every manual loop of the calling thread: nobody else will. Allocates nothing.
     *
     * @return the work they did
     */
    public static int invokeOwned() {
        int work = 0;
        for (Loop loop : OWNED.get()) {
            work += loop.cycle();
        }
        return work;
    }

    /**
     * Idles the calling thread's manual loops for up to {@code timeoutNanos}, then runs a cycle of each: one loop
     * blocks in its poller; with several, none can block for all, so the thread yields instead (drive several
     * loops from one thread only where that cost is acceptable, as in tests); with none the thread just waits.
     */
    public static void idleOwned(long timeoutNanos) {
        Loop[] owned = OWNED.get();
        if (owned.length == 1) {
            owned[0].idle(timeoutNanos);
        } else if (owned.length > 1) {
            Thread.yield();
            invokeOwned();
        } else if (timeoutNanos > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(timeoutNanos);
        }
    }

    /**
     * The next element of {@code queue} within {@code timeoutNanos}, or null, driving the calling thread's manual loops
     * meanwhile (what is added to the queue from elsewhere should wake them: {@link #wakeup()}); a thread without any
     * just waits.
     */
    public static <T> T pollOwned(java.util.concurrent.BlockingQueue<T> queue, long timeoutNanos)
            throws InterruptedException {
        if (OWNED.get().length == 0) {
            return queue.poll(timeoutNanos, TimeUnit.NANOSECONDS);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        for (T next = queue.poll(); ; next = queue.poll()) {
            if (next != null) {
                return next;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            idleOwned(left);
        }
    }

    /**
     * Waits up to {@code timeout} for {@code future}, driving the calling thread's manual loops meanwhile (a
     * connection is set up by the loop it will run on); a thread without any just waits.
     */
    public static <T> T joinOwned(CompletableFuture<T> future, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        Loop[] owned = OWNED.get();
        if (owned.length == 0) {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        if (owned.length == 1) {
            return owned[0].join(future, timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!future.isDone()) {
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("nothing within " + timeout);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            idleOwned(deadline - System.nanoTime());
        }
        return future.get();
    }

    /** The loop's name. */
    public String name() {
        return name;
    }

    /** The I/O it owns. */
    public Poller poller() {
        return poller;
    }

    /** Whether the application thread that made it drives it (else its own thread does). */
    public boolean manual() {
        return manual;
    }

    /** Whether the caller is the owner thread. */
    public boolean inLoop() {
        return Thread.currentThread() == owner;
    }

    /** Whether the loop still runs. */
    public boolean running() {
        return running;
    }

    /** Queues {@code task} for the owner thread, after those queued before it. Any thread; allocates nothing. */
    @Override
    public void execute(Runnable task) {
        while (!commands.offer(task)) {
            if (!running) {
                return; // closed and full: nothing will run it
            }
            Thread.onSpinWait(); // full: the owner is behind by 65536 commands
        }
        if (sleeping) {
            poller.wakeup();
        }
    }

    /**
     * Runs {@code task} at once when the caller is the owner thread outside a duty cycle (an application thread
     * posting to its own manual loop), else queues it: engine code never runs inside itself. Allocates nothing.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // as in cycle(): a bug in the task is recorded
    public void runNowOrLater(Runnable task) {
        if (depth == 0 && inLoop() && running) {
            depth++;
            try {
                task.run();
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e);
            } finally {
                depth--;
            }
        } else {
            execute(task);
        }
    }

    /** Makes an idle owner thread run a cycle now. Any thread. */
    public void wakeup() {
        poller.wakeup();
    }

    /**
     * One duty cycle, on the thread that made a manual loop.
     *
     * @return the work done, 0 if there was none
     * @throws IllegalStateException on another thread, or on a loop with a thread of its own
     */
    public int invoke() {
        requireManualOwner();
        return cycle();
    }

    /**
     * On the thread that made a manual loop: blocks in the poller until I/O may be ready, a command is queued, or
     * {@code timeoutNanos} pass (negative: no limit), then runs one duty cycle.
     *
     * @return the work done
     */
    public int idle(long timeoutNanos) {
        requireManualOwner();
        block(timeoutNanos);
        return cycle();
    }

    /**
     * Waits for {@code future} up to {@code timeout}. The thread that made a manual loop drives it meanwhile (a
     * connection is set up by the loop it will run on); any other thread just waits.
     */
    public <T> T join(CompletableFuture<T> future, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!manual || !inLoop()) {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        future.whenComplete((value, failed) -> poller.wakeup());
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!future.isDone()) {
            if (cycle() > 0) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException(name + ": nothing within " + timeout);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            block(left);
        }
        return future.get();
    }

    /** The first exception a command or the poller threw, or {@code null}: a bug, kept for tests and diagnostics. */
    public RuntimeException failure() {
        return failure.get();
    }

    private void requireManualOwner() {
        if (!manual || !inLoop()) {
            throw new IllegalStateException("loop " + name + " is driven by " + (manual ? "thread " + owner.getName()
                    : "its own thread") + ", not by " + Thread.currentThread().getName());
        }
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // a command's bug is recorded, not allowed to stop every stream
    private int cycle() {
        if (finished) {
            return 0;
        }
        int work = 0;
        depth++;
        try {
            work += runCommands(commands.size()); // what was queued when the cycle began
            try {
                work += poller.poll();
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e);
            }
            // what the I/O queued (usrsctp raises an association's readiness from inside the stack, where it cannot
            // be read) runs in this cycle, not the next: its data reaches the engine before the cycle returns
            work += runCommands(commands.size());
        } finally {
            depth--;
        }
        if (!running && depth == 0) {
            finish();
        }
        return work;
    }

    /** Runs up to {@code most} queued commands (a command that queues another does not keep the cycle going). */
    @SuppressWarnings("checkstyle:IllegalCatch") // as in cycle()
    private int runCommands(int most) {
        int ran = 0;
        for (Runnable task; ran < most && (task = commands.poll()) != null;) {
            ran++;
            try {
                task.run();
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e);
            }
        }
        return ran;
    }

    /** Blocks in the poller unless a command waits; a command queued meanwhile wakes it (it sees the flag). */
    private void block(long timeoutNanos) {
        sleeping = true;
        try {
            if (commands.isEmpty() && running) {
                poller.await(timeoutNanos);
            }
        } finally {
            sleeping = false;
        }
    }

    private void run() {
        int idleCycles = 0;
        while (running) {
            if (cycle() > 0) {
                idleCycles = 0;
            } else if (idle.idle(++idleCycles)) {
                block(-1);
                idleCycles = 0;
            }
        }
        if (!finished) {
            finish();
        }
    }

    /** Runs the commands queued so far, then releases the poller. Owner thread, once. */
    @SuppressWarnings("checkstyle:IllegalCatch") // as in cycle()
    private void finish() {
        finished = true;
        if (manual) {
            OWNED.set(java.util.Arrays.stream(OWNED.get()).filter(loop -> loop != this).toArray(Loop[]::new));
        }
        for (Runnable task = commands.poll(); task != null; task = commands.poll()) {
            try {
                task.run();
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e);
            }
        }
        poller.close();
    }

    /**
     * Stops the loop: the commands queued so far still run, then the poller is released. A loop with its own thread
     * is joined (unless this is that thread); a manual loop finishes now on its owner thread, else at its owner's next
     * cycle.
     */
    @Override
    public void close() {
        running = false;
        poller.wakeup();
        if (inLoop()) {
            if (depth == 0 && !finished) {
                finish();
            }
            return;
        }
        if (!manual) {
            try {
                owner.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Loop[" + name + (manual ? ", manual" : "") + "]";
    }
}
