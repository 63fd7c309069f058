package org.rddp.verbs;

/**
 * What a queue pair is created with ({@code ibv_qp_init_attr}).
 *
 * @param sendCq                 completions of the send queue
 * @param receiveCq              completions of the receive queue (or of the shared receive queue's receives)
 * @param sharedReceiveQueue     receives come from here instead of the queue pair's own queue; may be null
 * @param maxSendWorkRequests    send queue depth
 * @param maxReceiveWorkRequests receive queue depth (ignored with a shared receive queue)
 * @param maxSge                 scatter/gather elements per request
 * @param signalAll              every send request completes with a completion, whatever its signaled flag
 * @param eventHandler           receives the queue pair's asynchronous events, on its owner thread
 */
public record QpAttributes(CompletionQueue sendCq, CompletionQueue receiveCq, SharedReceiveQueue sharedReceiveQueue,
        int maxSendWorkRequests, int maxReceiveWorkRequests, int maxSge, boolean signalAll,
        QpEventHandler eventHandler) {

    /** Validates the references. */
    public QpAttributes {
        if (sendCq == null || receiveCq == null) {
            throw new IllegalArgumentException("a queue pair needs a send and a receive completion queue");
        }
        if (eventHandler == null) {
            eventHandler = QpEventHandler.IGNORE;
        }
    }

    /** One completion queue for both, own receive queue, every request signaled, events ignored. */
    public static QpAttributes of(CompletionQueue cq, int depth, int maxSge) {
        return new QpAttributes(cq, cq, null, depth, depth, maxSge, true, QpEventHandler.IGNORE);
    }
}
