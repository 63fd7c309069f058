package org.rddp.exs;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.WorkCompletion;

/**
 * An event queue ({@code exs_qcreate}): the events of its sockets' operations, each carrying its caller's handle.
 * The EXS protocol moves forward while a thread dequeues: matching advertisements with receives, starting the
 * reads, acknowledging. So a program keeps dequeuing while it expects something to happen, as with an asynchronous
 * sockets API; the connections' transport runs as its connection manager's progress says.
 *
 * <p>All the state of the queue's sockets is guarded by one lock, held briefly by the dequeuing thread and by
 * callers of the sockets' methods; the transport's loop threads take it only to hand over connection events.
 */
public final class ExsQueue {
    /** Completions the queue's sockets may have outstanding together (every socket bounds its own). */
    static final int COMPLETIONS = 16_384;
    final Exs exs;
    final ReentrantLock lock = new ReentrantLock();
    final CompletionQueue cq;
    private final ArrayDeque<ExsEvent> events = new ArrayDeque<>();
    private final Map<Integer, ExsConnection> byQueuePair = new HashMap<>();
    private final WorkCompletion[] batch = new WorkCompletion[32];
    private Thread progressing;

    ExsQueue(Exs exs) {
        this.exs = exs;
        this.cq = exs.device().createCompletionQueue(COMPLETIONS);
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
    }

    /**
     * Takes events into {@code into} ({@code exs_qdequeue}): waits until at least {@code min} are there (0: takes
     * what is there) or {@code timeout} passed; returns how many it took.
     */
    public int dequeue(ExsEvent[] into, int min, Duration timeout) throws InterruptedException {
        if (min < 0 || min > into.length) {
            throw new IllegalArgumentException("a minimum of 0 to " + into.length + " events, not " + min);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        int taken = 0;
        while (true) {
            lock.lock();
            try {
                progress();
                while (taken < into.length && !events.isEmpty()) {
                    into[taken++] = events.poll();
                }
                if (taken >= min) {
                    return taken;
                }
                cq.requestNotification(false);
                if (progress() > 0 || !events.isEmpty()) {
                    continue;
                }
            } finally {
                lock.unlock();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return taken;
            }
            cq.awaitNotification(Duration.ofNanos(left));
        }
    }

    /** Runs the protocol on what completed; returns the completions handled. Under the lock. */
    private int progress() {
        progressing = Thread.currentThread();
        int handled = 0;
        try {
            int polled;
            while ((polled = cq.poll(batch)) > 0) {
                for (int i = 0; i < polled; i++) {
                    ExsConnection connection = byQueuePair.get(batch[i].queuePairNumber());
                    if (connection != null) {
                        connection.completed(batch[i]);
                    }
                }
                handled += polled;
            }
        } finally {
            progressing = null;
        }
        return handled;
    }

    /** Adds an event; wakes a waiting dequeuer unless it is the caller. Under the lock. */
    void post(ExsEvent event) {
        events.add(event);
        if (progressing != Thread.currentThread()) {
            cq.signal();
        }
    }

    /** Routes the completions of {@code queuePair} to {@code connection}. Under the lock. */
    void attach(int queuePair, ExsConnection connection) {
        byQueuePair.put(queuePair, connection);
    }

    /** Stops routing {@code queuePair}'s completions. Under the lock. */
    void detach(int queuePair) {
        byQueuePair.remove(queuePair);
    }
}
