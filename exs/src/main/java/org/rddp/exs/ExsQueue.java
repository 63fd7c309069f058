package org.rddp.exs;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.WorkCompletion;

/**
 * An event queue ({@code exs_qcreate}): the events of its sockets' operations, each carrying its caller's handle.
 * What moves the EXS protocol forward (matching advertisements with receives, starting reads, acknowledging) is
 * chosen when the queue is made ({@link Driver}): the threads that dequeue or wait on it, or a thread of its own.
 * The connections' transport runs as its connection manager's progress says (a queue with a thread of its own needs
 * a transport whose loops have threads of their own).
 *
 * <p>Operations started with a future ({@link ExsSocket#sendAsync} and the like) complete their future instead of
 * queuing an event; the future's dependent actions run on a virtual thread of their own, never under the queue's
 * lock. {@link #await} waits for such a future, moving the protocol meanwhile when the queue is driven by its
 * callers.
 *
 * <p>All the state of the queue's sockets is guarded by one lock, held briefly by the thread moving the protocol
 * and by callers of the sockets' methods. The transport's loop threads never wait for it: what they bring (a
 * connection request, a connect or accept finished, a queue pair's event) is {@linkplain #underLock handed over}, run
 * at once when the lock is free and otherwise by its holder as it lets go ({@link #unlock}), in the order it came.
 */
public final class ExsQueue implements AutoCloseable {
    /**
     * Completions a queue's sockets may have outstanding together by default (every socket bounds its own): room for
     * about 120 connections of 16 credits.
     */
    public static final int DEFAULT_COMPLETIONS = 16_384;
    /** The fewest completions a queue holds. */
    public static final int MIN_COMPLETIONS = 256;
    /** The most completions a queue holds (each is held in memory from the start, ~50 octets). */
    public static final int MAX_COMPLETIONS = 1 << 20;
    /** Where the futures' dependent actions run: never under the lock. */
    private static final Executor COMPLETER = Executors.newVirtualThreadPerTaskExecutor();
    /** How long the queue's own thread waits on the completion queue before it looks again. */
    private static final Duration FOREVER = Duration.ofDays(1);

    /** What moves the protocol of a queue's sockets. */
    public enum Driver {
        /** The threads that call {@link #dequeue} or {@link #await}: nothing moves while none does. */
        CALLER,
        /** A virtual thread of the queue's own, until {@link #close}: futures complete without anyone waiting. */
        THREAD
    }

    final Exs exs;
    final ReentrantLock lock = new ReentrantLock();
    /** What threads that may not wait for {@link #lock} left to run under it, in the order they came. */
    private final ConcurrentLinkedQueue<Runnable> handovers = new ConcurrentLinkedQueue<>();
    final CompletionQueue cq;
    private final Driver driver;
    private final Condition eventsArrived = lock.newCondition();
    private final ArrayDeque<ExsEvent> events = new ArrayDeque<>();
    private final Map<Integer, ExsConnection> byQueuePair = new HashMap<>();
    private final WorkCompletion[] batch = new WorkCompletion[32];
    /** The connections a batch of completions went to. */
    private final ExsConnection[] touched = new ExsConnection[batch.length];
    /** Sockets closing gracefully, each aborted by the thread moving the protocol once its deadline passed. */
    private final ArrayList<ExsSocket> closing = new ArrayList<>();
    /** What waits for the completions queued before it ({@link #afterCompletions}). Under the lock. */
    private final ArrayDeque<Runnable> afterCompletions = new ArrayDeque<>();
    private final Thread thread;
    private Thread progressing;
    private final int capacity;
    private int reserved;
    private volatile boolean closed;

    ExsQueue(Exs exs, Driver driver, int capacity) {
        if (capacity < MIN_COMPLETIONS || capacity > MAX_COMPLETIONS) {
            throw new IllegalArgumentException("a queue holds " + MIN_COMPLETIONS + " to " + MAX_COMPLETIONS
                    + " completions, not " + capacity);
        }
        this.exs = exs;
        this.driver = driver;
        this.capacity = capacity;
        this.cq = exs.device().createCompletionQueue(capacity);
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        this.thread = driver == Driver.THREAD ? Thread.ofVirtual().name("exs-queue").start(this::drive) : null;
    }

    /**
     * Runs {@code action} under the lock without waiting for it: at once if the lock is free (or this thread holds
     * it), else by the holder as it lets go. For the transport's loop threads, which must never wait for an
     * application thread. Never blocks.
     */
    void underLock(Runnable action) {
        if (lock.isHeldByCurrentThread()) {
            action.run();
            return;
        }
        handovers.offer(action);
        runHandoversIfFree();
        if (!handovers.isEmpty()) {
            // the holder may be about to wait without letting go through unlock() (a condition's wait): wake the
            // thread that moves the protocol, whose next release runs it
            cq.signal();
        }
    }

    /** Whether something handed over waits for the lock's holder to let go. */
    boolean handingOver() {
        return !handovers.isEmpty();
    }

    /**
     * Lets go of the lock, running first what was handed over meanwhile when this is the outermost hold. Every
     * release of the lock goes through here, so that nothing handed over waits for a later one: an action offered
     * after the last look here finds the lock free and runs on its own thread ({@link #underLock}).
     */
    void unlock() {
        if (lock.getHoldCount() == 1) {
            runHandovers();
        }
        lock.unlock();
        if (!handovers.isEmpty()) {
            runHandoversIfFree();
        }
    }

    private void runHandoversIfFree() {
        while (!handovers.isEmpty() && lock.tryLock()) {
            try {
                runHandovers();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Runs what was handed over. Under the lock. */
    @SuppressWarnings("checkstyle:IllegalCatch") // one failed hand-over must not stop the others or its runner
    private void runHandovers() {
        for (Runnable action = handovers.poll(); action != null; action = handovers.poll()) {
            try {
                action.run();
            } catch (RuntimeException e) {
                Thread thread = Thread.currentThread();
                thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
            }
        }
    }

    /** What moves the protocol of this queue's sockets. */
    public Driver driver() {
        return driver;
    }

    /** Completions its sockets may have outstanding together; a connection of {@code c} credits takes 8c + 4. */
    public int capacity() {
        return capacity;
    }

    /**
     * Takes events into {@code into} ({@code exs_qdequeue}): waits until at least {@code min} are there (0: takes
     * what is there) or {@code timeout} passed; returns how many it took.
     */
    public int dequeue(ExsEvent[] into, int min, Duration timeout) throws InterruptedException {
        if (min < 0 || min > into.length) {
            throw new IllegalArgumentException("a minimum of 0 to " + into.length + " events, not " + min);
        }
        exs.checkDriver();
        long deadline = System.nanoTime() + timeout.toNanos();
        int taken = 0;
        while (true) {
            lock.lock();
            try {
                if (driver == Driver.CALLER) {
                    progress();
                }
                while (taken < into.length && !events.isEmpty()) {
                    into[taken++] = events.poll();
                }
                if (taken >= min || !waitFor(deadline)) {
                    return taken;
                }
            } finally {
                unlock();
            }
        }
    }

    /**
     * Waits until events are queued or {@code timeout} passed ({@code exs_poll}), moving the protocol meanwhile when
     * the queue is driven by its callers; takes none. Returns how many are queued.
     */
    public int poll(Duration timeout) throws InterruptedException {
        exs.checkDriver();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            lock.lock();
            try {
                if (driver == Driver.CALLER) {
                    progress();
                }
                if (!events.isEmpty() || !waitFor(deadline)) {
                    return events.size();
                }
            } finally {
                unlock();
            }
        }
    }

    /**
     * Waits for something to happen, until {@code deadline}: an event queued by the queue's own thread, or a
     * completion or signal for a caller that moves the protocol. Returns false once the deadline passed (or the
     * queue closed). Called under the lock, which it releases while it waits.
     */
    private boolean waitFor(long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        if (driver == Driver.THREAD) {
            if (closed) {
                return false;
            }
            eventsArrived.awaitNanos(left);
            return true;
        }
        cq.requestNotification(false);
        if (progress() > 0 || !events.isEmpty()) {
            return true;
        }
        long wait = closeWait(left);
        unlock();
        try {
            cq.awaitNotification(Duration.ofNanos(wait));
        } finally {
            lock.lock();
        }
        return true;
    }

    /**
     * Waits up to {@code timeout} for an operation's future ({@link ExsSocket#sendAsync} and the like), moving the
     * protocol meanwhile when the queue is driven by its callers; on a virtual thread, waiting parks it. Returns the
     * event.
     *
     * @throws ExsException     the operation failed: why, naming the socket
     * @throws TimeoutException it did not finish within the timeout
     */
    public ExsEvent await(CompletableFuture<ExsEvent> future, Duration timeout) throws ExsException,
            InterruptedException, TimeoutException {
        exs.checkDriver();
        long deadline = System.nanoTime() + timeout.toNanos();
        if (driver == Driver.CALLER) {
            future.whenComplete((event, failed) -> cq.signal());
            while (!future.isDone()) {
                if (progressArmed()) {
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("nothing within " + timeout);
                }
                if (!future.isDone()) {
                    cq.awaitNotification(Duration.ofNanos(closeWait(left)));
                }
            }
        }
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ExsException failure) {
                throw failure;
            }
            throw new ExsException("the operation failed", e.getCause());
        }
    }

    /** Stops the queue's own thread, if it has one; its sockets' operations no longer move. */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        cq.signal();
        lock.lock();
        try {
            eventsArrived.signalAll();
        } finally {
            unlock();
        }
        if (thread != null) {
            thread.join();
        }
    }

    /** The queue's own thread: moves the protocol whenever a completion or a signal comes. */
    private void drive() {
        try {
            while (!closed) {
                if (!progressArmed()) {
                    cq.awaitNotification(Duration.ofNanos(closeWait(FOREVER.toNanos())));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs the protocol, arms the completion queue, and runs it once more, so that a completion between the two is
     * not missed; returns whether the second run found work (if not, a wait on the queue's notification is safe).
     */
    private boolean progressArmed() {
        lock.lock();
        try {
            progress();
            cq.requestNotification(false);
            return progress() > 0;
        } finally {
            unlock();
        }
    }

    /**
     * Runs the protocol on what completed, and aborts the closes whose deadline passed; returns the completions and
     * closes handled. Under the lock.
     */
    private int progress() {
        progressing = Thread.currentThread();
        int handled = 0;
        try {
            handled += expireCloses();
            int polled;
            while ((polled = cq.poll(batch)) > 0) {
                int connections = 0;
                try {
                    for (int i = 0; i < polled; i++) {
                        ExsConnection connection = byQueuePair.get(batch[i].queuePairNumber());
                        if (connection != null) {
                            if (!connection.inBatch()) {
                                connection.beginBatch();
                                touched[connections++] = connection;
                            }
                            connection.completed(batch[i]);
                        }
                    }
                } finally {
                    for (int i = 0; i < connections; i++) { // the answers each made go out, together where they can
                        touched[i].endBatch();
                        touched[i] = null;
                    }
                }
                handled += polled;
            }
            for (Runnable after = afterCompletions.poll(); after != null; after = afterCompletions.poll()) {
                after.run(); // a peer's close, now that what it sent before it has been handled
                handled++;
            }
        } finally {
            progressing = null;
        }
        return handled;
    }

    /**
     * Runs {@code action} once the completions already in the completion queue have been handled, at the end of the
     * next run of the protocol: a peer's close must not overtake the last messages it sent before it (an
     * acknowledgement still in the queue would otherwise fail the send it completes). Under the lock.
     */
    void afterCompletions(Runnable action) {
        afterCompletions.add(action);
        if (progressing != Thread.currentThread()) {
            cq.signal(); // whoever moves the protocol runs it soon; within a run, its end does
        }
    }

    /** Aborts the closing sockets whose deadline passed; returns how many. Under the lock. */
    private int expireCloses() {
        if (closing.isEmpty()) {
            return 0;
        }
        long now = System.nanoTime();
        int expired = 0;
        for (int i = closing.size() - 1; i >= 0; i--) { // from the end: an aborted socket leaves the list
            ExsSocket socket = closing.get(i);
            if (now - socket.closeDeadline() >= 0) {
                socket.closeExpired();
                expired++;
            }
        }
        return expired;
    }

    /** How long a wait of up to {@code left} nanoseconds may last: until the first close deadline at most. */
    private long closeWait(long left) {
        lock.lock();
        try {
            long wait = left;
            long now = System.nanoTime();
            for (ExsSocket socket : closing) {
                wait = Math.min(wait, Math.max(1, socket.closeDeadline() - now));
            }
            return wait;
        } finally {
            unlock();
        }
    }

    /** {@code socket} started a graceful close, which its deadline bounds. Under the lock. */
    void closing(ExsSocket socket) {
        closing.add(socket);
        if (driver == Driver.THREAD) {
            cq.signal(); // the queue's thread may be waiting with no deadline
        }
    }

    /** {@code socket} is closed: no deadline of its runs any more. Under the lock. */
    void closed(ExsSocket socket) {
        closing.remove(socket);
    }

    /**
     * Delivers an event: completes its operation's future (on another thread), or queues it and wakes a waiting
     * dequeuer unless it is the caller. Under the lock.
     */
    void post(ExsEvent event) {
        if (event.context() instanceof Completion completion) {
            COMPLETER.execute(() -> completion.finish(event));
            return;
        }
        events.add(event);
        if (driver == Driver.THREAD) {
            eventsArrived.signalAll();
        } else if (progressing != Thread.currentThread()) {
            cq.signal();
        }
    }

    /**
     * Reserves room for {@code count} completions of a new connection of {@code socket}. Under the lock.
     *
     * @throws IllegalStateException when the queue's sockets already reserve too many: more sockets need another
     *                               queue, a larger one (or fewer credits each)
     */
    void reserve(int count, ExsSocket socket) {
        if (reserved + count > capacity) {
            throw new IllegalStateException("cannot connect " + socket + ": its queue's connected sockets already "
                    + "reserve " + reserved + " of its " + capacity + " completions and it needs " + count
                    + "; give it another queue or a larger one (Exs.createQueue(driver, completions)), or fewer "
                    + "credits");
        }
        reserved += count;
    }

    /** Whether {@code count} more completions fit. Under the lock. */
    boolean hasRoom(int count) {
        return reserved + count <= capacity;
    }

    /** Gives back what {@link #reserve} took. Under the lock. */
    void unreserve(int count) {
        reserved -= count;
    }

    /** Routes the completions of {@code queuePair} to {@code connection}. Under the lock. */
    void attach(int queuePair, ExsConnection connection) {
        byQueuePair.put(queuePair, connection);
    }

    /** Stops routing {@code queuePair}'s completions. Under the lock. */
    void detach(int queuePair) {
        byQueuePair.remove(queuePair);
    }

    /** An operation's future, given as its context: its event completes it instead of being queued. */
    static final class Completion extends CompletableFuture<ExsEvent> {
        void finish(ExsEvent event) {
            if (event.ok()) {
                complete(event);
            } else {
                completeExceptionally(event.error());
            }
        }
    }
}
