package org.rddp.verbs;

import org.rddp.llp.LlpParameters;

/**
 * An established connection: its queue pair and what setup negotiated.
 *
 * @param queuePair  the queue pair, in RTS
 * @param parameters the negotiated IRD/ORD, RTR and private data
 */
public record Connection(QueuePair queuePair, LlpParameters parameters) {

    /** Starts a graceful disconnect. */
    public void disconnect() {
        queuePair.disconnect();
    }
}
