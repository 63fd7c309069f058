package org.rddp.loop;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jctools.queues.MpscArrayQueue;

/**
 * A loop: one owner thread that runs a duty cycle over the I/O its {@link Poller} owns and the streams on it, as an
 * Aeron agent does. One cycle runs the commands other threads queued ({@link #execute}), in order, then the I/O that
 * is ready ({@link Poller#poll}), then the {@linkplain #schedule deadlines} that have passed, and returns the work
 * done. The loop's timers are its deadlines: no other thread keeps time for what lives on it.
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
 *
 * <p>A loop survives what it runs: a command, the poller or a stream that throws anything, an {@link Error}
 * included, is counted ({@link #errors()}) and handed to the loop's {@link ErrorHandler}, and the next command runs.
 * Streams catch what their own steps throw and end themselves first (a local catastrophic error, RFC 5040 §7.1), so
 * that only the streams a failure touched end. A loop whose poller keeps failing ({@value #POLLER_FAILURES_TO_STOP}
 * cycles in a row) cannot go on: it stops, runs what was queued, releases the poller, and from then on refuses
 * commands with a {@link RejectedExecutionException} naming the cause ({@link #stopCause()}).
 */
public final class Loop implements Executor, AutoCloseable {
    private static final int CAPACITY = 1 << 16;
    /** Duty cycles in a row whose poll failed after which the loop stops: its I/O is broken, not one stream. */
    static final int POLLER_FAILURES_TO_STOP = 16;
    /** Throwables every loop of the process caught. */
    private static final AtomicLong ERRORS_IN_PROCESS = new AtomicLong();
    private static final Loop[] NONE = new Loop[0];
    /** The manual loops each thread made and has not closed: that thread, and only it, drives them. */
    private static final ThreadLocal<Loop[]> OWNED = ThreadLocal.withInitial(() -> NONE);

    private final String name;
    private final Poller poller;
    private final Queue<Runnable> commands = new MpscArrayQueue<>(CAPACITY);
    private final Thread owner;
    private final boolean manual;
    private final IdleStrategy idle;
    private final ErrorHandler errorHandler;
    /** The first throwable that reached the loop without a stream to answer for it: a bug. */
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong errors = new AtomicLong();
    /** Commands the owner thread queued while the queue was full (it cannot wait for itself). Owner thread. */
    private final java.util.ArrayDeque<Runnable> overflow = new java.util.ArrayDeque<>();
    /** What must happen by when, earliest first. Owner thread. */
    private final java.util.PriorityQueue<Deadline> deadlines = new java.util.PriorityQueue<>();
    private volatile boolean running = true;
    private volatile boolean sleeping;
    /** Why the loop stopped on its own, or null: it runs, or was closed. */
    private volatile Throwable stopCause;
    private volatile boolean finished;
    private int depth;
    private int pollerFailures;

    private Loop(String name, Poller poller, IdleStrategy idle, boolean manual, ErrorHandler errorHandler) {
        this.name = name;
        this.poller = poller;
        this.idle = idle;
        this.manual = manual;
        this.errorHandler = java.util.Objects.requireNonNull(errorHandler, "errorHandler");
        this.owner = manual ? Thread.currentThread()
                : Thread.ofPlatform().name(name).daemon(true).unstarted(this::run);
        poller.ownedBy(this);
    }

    /** A loop driven by a thread of its own, a daemon named {@code name}, idling as {@code idle} says. */
    public static Loop start(String name, Poller poller, IdleStrategy idle) {
        return start(name, poller, idle, ErrorHandler.LOGGING);
    }

    /** As above, reporting what it survives to {@code errorHandler}. */
    public static Loop start(String name, Poller poller, IdleStrategy idle, ErrorHandler errorHandler) {
        Loop loop = new Loop(name, poller, idle, false, errorHandler);
        loop.owner.start();
        return loop;
    }

    /**
     * A loop driven by the calling thread: it runs only while this thread invokes it, which a poll of, or a wait on,
     * any completion queue on this thread does ({@link #invokeOwned()}, {@link #idleOwned(long)}).
     */
    public static Loop manual(String name, Poller poller) {
        return manual(name, poller, ErrorHandler.LOGGING);
    }

    /** As above, reporting what it survives to {@code errorHandler}. */
    public static Loop manual(String name, Poller poller, ErrorHandler errorHandler) {
        Loop loop = new Loop(name, poller, IdleStrategy.BLOCKING, true, errorHandler);
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
     *
     * @return the work the cycles did, 0 if none (or no loop)
     */
    public static int idleOwned(long timeoutNanos) {
        Loop[] owned = OWNED.get();
        if (owned.length == 1) {
            return owned[0].idle(timeoutNanos);
        }
        if (owned.length > 1) {
            Thread.yield();
            return invokeOwned();
        }
        if (timeoutNanos > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(timeoutNanos);
        }
        return 0;
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

    /** Why the loop stopped on its own (its poller kept failing), or null while it runs or once it was closed. */
    public Throwable stopCause() {
        return stopCause;
    }

    /**
     * Queues {@code task} for the owner thread, after those queued before it. Any thread; allocates nothing. A loop
     * that was closed drops it (its streams were ended with it); one that stopped on its own refuses it.
     *
     * @throws RejectedExecutionException the loop stopped because its poller kept failing: nothing will run
     *                                    {@code task}
     */
    @Override
    public void execute(Runnable task) {
        while (!commands.offer(task)) {
            if (inLoop()) {
                overflow.add(task); // the owner cannot wait for itself to make room
                return;
            }
            refuseIfStopped();
            if (finished) {
                return; // closed and full: nothing will run it
            }
            Thread.onSpinWait(); // full: the owner is behind by 65536 commands
        }
        if (finished) {
            refuseIfStopped(); // a closed loop dropped it with the rest
        }
        if (sleeping) {
            poller.wakeup();
        }
    }

    private void refuseIfStopped() {
        Throwable cause = stopCause;
        if (cause != null) {
            throw new RejectedExecutionException("loop " + name + " stopped: its poller failed "
                    + POLLER_FAILURES_TO_STOP + " times in a row, the last with " + cause, cause);
        }
    }

    /**
     * A stream on this loop met {@code error} and has ended itself: counts it and hands it to the loop's
     * {@link ErrorHandler}. Owner thread.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // see below
    public void reportError(Throwable error) {
        errors.incrementAndGet();
        ERRORS_IN_PROCESS.incrementAndGet();
        try {
            errorHandler.onError(this, error);
        } catch (Throwable handlerFailure) { // the handler's own bug must not end the loop either
            handlerFailure.addSuppressed(error);
            handlerFailure.printStackTrace();
        }
    }

    /** Throwables this loop caught, from its commands, its poller and the streams on it. Any thread. */
    public long errors() {
        return errors.get();
    }

    /** Throwables every loop of the process caught ({@link #errors()} summed). Any thread. */
    public static long errorsInProcess() {
        return ERRORS_IN_PROCESS.get();
    }

    /** {@code error} escaped to the loop: kept if it is the first, counted and reported. Owner thread. */
    private void caught(Throwable error) {
        failure.compareAndSet(null, error);
        reportError(error);
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
            } catch (Throwable e) {
                caught(e);
            } finally {
                depth--;
            }
        } else {
            execute(task);
        }
    }

    /**
     * Runs {@code expiry} on the owner thread in the first duty cycle after {@code atNanos} (in
     * {@link System#nanoTime()}) has passed, unless the returned deadline is {@linkplain Deadline#cancel() cancelled}
     * first. An idle loop wakes for it: its owner blocks no longer than the earliest deadline. What {@code expiry}
     * throws is the loop's to report, as a command's is. Owner thread: the loop's own timers, with no thread of theirs.
     *
     * @throws IllegalStateException on another thread
     */
    public Deadline schedule(long atNanos, Runnable expiry) {
        if (!inLoop()) {
            throw new IllegalStateException("loop " + name + ": a deadline is set on its owner thread, not on "
                    + Thread.currentThread().getName());
        }
        Deadline deadline = new Deadline(this, atNanos, java.util.Objects.requireNonNull(expiry, "expiry"));
        deadlines.add(deadline);
        return deadline;
    }

    /** Deadlines set and not yet run or cancelled. Owner thread. */
    public int deadlines() {
        return deadlines.size();
    }

    /** A cancelled deadline leaves the queue. Owner thread. */
    void forget(Deadline deadline) {
        deadlines.remove(deadline);
    }

    /** Runs the deadlines that have passed, earliest first; those set meanwhile wait for the next cycle. */
    private int expire() {
        if (deadlines.isEmpty()) {
            return 0;
        }
        int work = 0;
        long now = System.nanoTime();
        for (Deadline next = deadlines.peek(); next != null && next.at - now <= 0; next = deadlines.peek()) {
            deadlines.poll();
            Runnable expiry = next.expiry;
            next.expiry = null;
            if (expiry != null) {
                work++;
                runCommand(expiry);
            }
        }
        return work;
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
            refuseIfStopped();
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

    /**
     * The first throwable a command or the poller let escape to the loop (one no stream caught and answered for), or
     * {@code null}: a bug, kept for tests and diagnostics.
     */
    public Throwable failure() {
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
            // the deadlines before the I/O, not after it: a cycle's reads and the commands just run (what its
            // owner posted) then reach their socket, and what was read reaches its owner, without the clock read
            // between them (tens of nanoseconds of each busily polled round trip)
            work += expire();
            try {
                work += poller.poll();
                pollerFailures = 0;
            } catch (Throwable e) {
                caught(e);
                if (++pollerFailures >= POLLER_FAILURES_TO_STOP) {
                    stop(e);
                }
            }
            // what the I/O and the deadlines queued (usrsctp raises an association's readiness from inside the stack,
            // where it cannot be read) runs in this cycle, not the next: its data reaches the engine before the cycle
            // returns
            work += runCommands(commands.size());
        } finally {
            depth--;
        }
        if (!running && depth == 0) {
            finish();
        }
        return work;
    }

    /** The loop cannot go on: it takes no more commands, and finishes at the end of this cycle. Owner thread. */
    private void stop(Throwable cause) {
        stopCause = cause;
        running = false;
    }

    /**
     * Runs up to {@code most} queued commands (a command that queues another does not keep the cycle going), then
     * what the owner queued while the queue was full.
     */
    private int runCommands(int most) {
        int ran = 0;
        for (Runnable task; ran < most && (task = commands.poll()) != null;) {
            ran++;
            runCommand(task);
        }
        for (int left = overflow.size(); left > 0; left--) {
            ran++;
            runCommand(overflow.poll());
        }
        return ran;
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // as in cycle()
    private void runCommand(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            caught(e);
        }
    }

    /**
     * Blocks in the poller unless a command waits, no longer than the earliest deadline; a command queued meanwhile
     * wakes it (it sees the flag).
     */
    private void block(long timeoutNanos) {
        Deadline first = deadlines.peek();
        if (first != null) {
            long due = Math.max(0, first.at - System.nanoTime());
            timeoutNanos = timeoutNanos < 0 ? due : Math.min(timeoutNanos, due);
        }
        sleeping = true;
        try {
            if (commands.isEmpty() && running && timeoutNanos != 0) {
                poller.await(timeoutNanos);
            }
        } finally {
            sleeping = false;
        }
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // nothing ends the thread but close() or a broken poller
    private void run() {
        int idleCycles = 0;
        while (running) {
            try {
                if (cycle() > 0) {
                    idleCycles = 0;
                } else if (idle.idle(++idleCycles)) {
                    idleCycles = 0;
                    block(-1);
                }
            } catch (Throwable e) { // the poller's wait failed
                caught(e);
                if (++pollerFailures >= POLLER_FAILURES_TO_STOP) {
                    stop(e);
                }
            }
        }
        if (!finished) {
            finish();
        }
    }

    /** Runs the commands queued so far, then releases the poller. Owner thread, once. */
    @SuppressWarnings("checkstyle:IllegalCatch") // as in cycle()
    private void finish() {
        if (manual) {
            OWNED.set(java.util.Arrays.stream(OWNED.get()).filter(loop -> loop != this).toArray(Loop[]::new));
        }
        runQueued();
        finished = true; // from here on a command is dropped (closed) or refused (stopped); the ones in between run
        runQueued();
        try {
            poller.close();
        } catch (Throwable e) {
            caught(e);
        }
    }

    private void runQueued() {
        for (Runnable task = commands.poll(); task != null; task = commands.poll()) {
            runCommand(task);
        }
        for (Runnable task = overflow.poll(); task != null; task = overflow.poll()) {
            runCommand(task);
        }
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
