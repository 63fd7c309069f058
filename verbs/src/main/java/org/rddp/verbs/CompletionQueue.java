package org.rddp.verbs;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jctools.queues.MpmcArrayQueue;
import org.rddp.engine.WcStatus;
import org.rddp.llp.LlpStream;

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
    private volatile LlpStream[] progressStreams = new LlpStream[0];
    private volatile Runnable[] progressWork = new Runnable[0];

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
     * Takes the oldest completion into {@code into}; returns false if there is none. When the queue is empty it
     * first lets the streams of its queue pairs make progress on this thread if their owners are idle, so a
     * polling consumer does not wait for a parked thread to wake.
     */
    public boolean poll(WorkCompletion into) {
        WorkCompletion entry = ready.poll();
        if (entry == null) {
            LlpStream[] streams = progressStreams;
            Runnable[] work = progressWork;
            for (int i = 0; i < streams.length && i < work.length; i++) {
                streams[i].tryRun(work[i]);
            }
            entry = ready.poll();
        }
        if (entry == null) {
            return false;
        }
        into.copyFrom(entry);
        free.offer(entry);
        return true;
    }

    /** Takes up to {@code into.length} completions; returns how many. */
    public int poll(WorkCompletion[] into) {
        int count = 0;
        while (count < into.length && poll(into[count])) {
            count++;
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
     * Waits for a notification requested with {@link #requestNotification}; false on timeout. The streams of this
     * queue's queue pairs are told first that nobody polls them for now ({@link LlpStream#progressPaused()}): one
     * that left its reading to the polling consumer goes back to reading on its own thread.
     */
    public boolean awaitNotification(Duration timeout) throws InterruptedException {
        for (LlpStream stream : progressStreams) {
            stream.progressPaused();
        }
        return notifications.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Completions that found the queue full and were lost: the queue was created too small. */
    public long overruns() {
        return overruns.get();
    }

    /** Lets {@code stream} make progress when a consumer polls this queue empty. */
    synchronized void addProgress(LlpStream stream, Runnable work) {
        for (LlpStream known : progressStreams) {
            if (known == stream) {
                return;
            }
        }
        LlpStream[] streams = java.util.Arrays.copyOf(progressStreams, progressStreams.length + 1);
        Runnable[] works = java.util.Arrays.copyOf(progressWork, progressWork.length + 1);
        streams[streams.length - 1] = stream;
        works[works.length - 1] = work;
        progressWork = works;
        progressStreams = streams;
    }

    /** Stops polling {@code stream} for progress. */
    synchronized void removeProgress(LlpStream stream) {
        int index = -1;
        for (int i = 0; i < progressStreams.length; i++) {
            if (progressStreams[i] == stream) {
                index = i;
            }
        }
        if (index < 0) {
            return;
        }
        LlpStream[] streams = new LlpStream[progressStreams.length - 1];
        Runnable[] works = new Runnable[streams.length];
        for (int i = 0, j = 0; i < progressStreams.length; i++) {
            if (i != index) {
                streams[j] = progressStreams[i];
                works[j++] = progressWork[i];
            }
        }
        progressStreams = streams;
        progressWork = works;
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
            }
        }
    }
}
