package org.rddp.verbs;

import java.util.Queue;
import org.jctools.queues.MpmcArrayQueue;
import org.rddp.engine.ReceiveWork;

/**
 * A shared receive queue ({@code ibv_srq}): receives that any queue pair attached to it takes, in posting order,
 * when a Send arrives. Thread-safe; posting allocates nothing.
 */
public final class SharedReceiveQueue {
    private final ProtectionDomain pd;
    private final int maxSge;
    private final Queue<ReceiveWork> free;
    private final Queue<ReceiveWork> posted;

    SharedReceiveQueue(ProtectionDomain pd, int maxWorkRequests, int maxSge) {
        this.pd = pd;
        this.maxSge = maxSge;
        this.free = new MpmcArrayQueue<>(Math.max(2, maxWorkRequests));
        this.posted = new MpmcArrayQueue<>(Math.max(2, maxWorkRequests));
        for (int i = 0; i < maxWorkRequests; i++) {
            free.offer(new ReceiveWork(maxSge));
        }
    }

    /** The protection domain. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** Posts a receive: {@link PostStatus#OK} or {@link PostStatus#QUEUE_FULL}. */
    public int postReceive(ReceiveWorkRequest request) {
        if (request.sgeCount() > maxSge) {
            throw new IllegalArgumentException(request.sgeCount() + " elements, the queue takes " + maxSge);
        }
        ReceiveWork work = free.poll();
        if (work == null) {
            return PostStatus.QUEUE_FULL;
        }
        request.copyTo(work);
        posted.offer(work);
        return PostStatus.OK;
    }

    ReceiveWork take() {
        return posted.poll();
    }

    void recycle(ReceiveWork work) {
        free.offer(work);
    }
}
