package org.rddp.verbs;

import org.rddp.work.QpEvent;
import org.rddp.rdmap.TerminateHeader;

/**
 * Receives a queue pair's asynchronous events ({@code ibv_get_async_event}) on its owner thread: be quick. An
 * exception it throws is counted ({@link org.rddp.llp.Counter#CALLBACK_FAILURES}) and handed to that thread's
 * uncaught-exception handler; the queue pair carries on as if it had returned.
 */
@FunctionalInterface
public interface QpEventHandler {
    /** Ignores every event. */
    QpEventHandler IGNORE = (qp, event, terminate, detail) -> { };

    /**
     * One event.
     *
     * @param terminate the Terminate sent or received, for the TERMINATE events, else null
     * @param detail    what happened, for a person
     */
    void onEvent(QueuePair qp, QpEvent event, TerminateHeader terminate, String detail);
}
