package org.rddp.verbs;

import org.rddp.work.WcStatus;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jctools.queues.MpmcArrayQueue;
import org.rddp.loop.Loop;

/**
 * A completion queue ({@code ibv_cq}): completions of any number of queue pairs, polled by the consumer without
 * allocation, with blocking notification that can be limited to solicited (and failed) completions
 * ({@code ibv_req_notify_cq}). Thread-safe.
 */
public final class CompletionQueue {
    private static final int DISARMED = 0;
    private static final int NEXT = 1;
    private static final int SOLICITED = 2;

    private final int capacity;
    private final Queue<WorkCompletion> free;
    private final Queue<WorkCompletion> ready;
    private final AtomicInteger armed = new AtomicInteger();
    private volatile int moderation = 1;
    private final Semaphore notifications = new Semaphore(0);
    private final AtomicLong overruns = new AtomicLong();
    /** The manual loop a waiter on this queue blocks in, or null: a completion from elsewhere wakes it. */
    private volatile Loop blockedIn;

    CompletionQueue(int capacity) {
        this.capacity = capacity;
        this.free = new MpmcArrayQueue<>(Math.max(2, capacity));
        this.ready = new MpmcArrayQueue<>(Math.max(2, capacity));
        for (int i = 0; i < capacity; i++) {
            free.offer(new WorkCompletion());
        }
    }

    /** Entries the queue holds. */
    public int capacity() {
        return capacity;
    }

    /**
     * Takes the oldest completion into {@code into}; returns false if there is none. When the queue is empty and the
     * calling thread drives manual loops ({@link Loop#manual}), it first runs their duty cycles: the polling thread
     * reads its own sockets. Allocates nothing.
     */
    public boolean poll(WorkCompletion into) {
        WorkCompletion entry = ready.poll();
        if (entry == null && Loop.invokeOwned() > 0) {
            entry = ready.poll();
        }
        if (entry == null) {
            return false;
        }
        into.copyFrom(entry);
        free.offer(entry);
        return true;
    }

    /**
     * Takes up to {@code into.length} completions; returns how many. A thread that drives manual loops runs their
     * duty cycles once, and only when the queue is empty: the caller handles what it took before the loops run
     * again. Allocates nothing.
     */
    public int poll(WorkCompletion[] into) {
        int count = take(into);
        if (count == 0 && into.length > 0 && Loop.invokeOwned() > 0) {
            count = take(into);
        }
        return count;
    }

    /** Takes the completions that are ready, up to {@code into.length}, without running any loop. */
    private int take(WorkCompletion[] into) {
        int count = 0;
        for (WorkCompletion entry; count < into.length && (entry = ready.poll()) != null; count++) {
            into[count].copyFrom(entry);
            free.offer(entry);
        }
        return count;
    }

    /**
     * Arms the queue: the next completion added (or, with {@code solicitedOnly}, the next solicited or failed
     * one) releases one {@link #awaitNotification} waiter. Completions already queued do not count: poll again
     * after arming.
     */
    public void requestNotification(boolean solicitedOnly) {
        moderation = 1;
        armed.set(solicitedOnly ? SOLICITED : NEXT);
    }

    /**
     * Arms the queue with moderation (as {@code ibv_modify_cq}'s completion count does): one
     * {@link #awaitNotification} waiter is released once at least {@code completions} completions are queued, or
     * at the first failed one. A poster that keeps many operations outstanding then wakes once per batch rather
     * than once per completion. Poll again after arming.
     */
    public void requestNotification(int completions) {
        if (completions < 1) {
            throw new IllegalArgumentException("at least one completion, not " + completions);
        }
        moderation = completions;
        armed.set(NEXT);
    }

    /**
     * Waits for a notification requested with {@link #requestNotification}; false on timeout. A caller that drives
     * manual loops runs them meanwhile, blocking in the poller of its loop between duty cycles (woken by its sockets,
     * by commands, and by completions other threads add).
     */
    public boolean awaitNotification(Duration timeout) throws InterruptedException {
        return await(timeout, false);
    }

    /**
     * {@link #awaitNotification}, except that a caller that drives manual loops also returns, false, once a duty cycle
     * of theirs did work without bringing the notification: a consumer that polls busily while its loop is busy (a
     * stream of data arriving, as at the receiver of RDMA Writes) goes back to polling, where waiting in the poller
     * would sleep, and be woken by the peer, once per arrival. A caller without manual loops just waits.
     */
    public boolean awaitNotificationOrWork(Duration timeout) throws InterruptedException {
        return await(timeout, true);
    }

    private boolean await(Duration timeout, boolean untilWork) throws InterruptedException {
        Loop[] owned = Loop.ownedByCurrentThread();
        if (owned.length == 0) {
            return notifications.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        blockedIn = owned.length == 1 ? owned[0] : null;
        try {
            while (!notifications.tryAcquire()) {
                int work = Loop.invokeOwned();
                if (notifications.tryAcquire()) {
                    return true;
                }
                if (untilWork && work > 0) {
                    return false;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (work == 0 && Loop.idleOwned(left) > 0 && untilWork) {
                    return notifications.tryAcquire();
                }
            }
            return true;
        } finally {
            blockedIn = null;
        }
    }

    /**
     * Releases one {@link #awaitNotification} waiter now, armed or not, as a completion channel shared with other
     * event sources does: a consumer that waits here also for events of its own (a layer above verbs) signals when
     * it adds one. A signal with no waiter lets the next wait return at once, so a waiter must look again for what
     * it waits for.
     */
    public void signal() {
        notifications.release();
        Loop waiting = blockedIn;
        if (waiting != null && !waiting.inLoop()) {
            waiting.wakeup();
        }
    }

    /** Completions that found the queue full and were lost: the queue was created too small. */
    public long overruns() {
        return overruns.get();
    }

    /** Adds a completion; called by queue pairs on their owner threads. */
    void push(long wrId, WcStatus status, WcOpcode opcode, long byteLength, int queuePair, int invalidatedStag,
            boolean solicited) {
        WorkCompletion entry = free.poll();
        if (entry == null) {
            overruns.incrementAndGet();
            return;
        }
        entry.wrId = wrId;
        entry.status = status;
        entry.opcode = opcode;
        entry.byteLength = byteLength;
        entry.queuePairNumber = queuePair;
        entry.invalidatedStag = invalidatedStag;
        entry.solicited = solicited;
        ready.offer(entry);
        int mode = armed.get();
        if (mode == NEXT && (moderation == 1 || status != WcStatus.SUCCESS || ready.size() >= moderation)
                || mode == SOLICITED && (solicited || status != WcStatus.SUCCESS)) {
            if (armed.compareAndSet(mode, DISARMED)) {
                notifications.release();
                Loop waiting = blockedIn;
                if (waiting != null && !waiting.inLoop()) {
                    waiting.wakeup(); // a waiter blocked in its loop's poller, for a completion from another loop
                }
            }
        }
    }
}
