package org.rddp.verbs;

import org.rddp.llp.LlpParameters;

/**
 * An established connection: its queue pair and what setup negotiated.
 *
 * @param queuePair  the queue pair, in RTS
 * @param parameters the negotiated IRD/ORD, RTR and private data
 */
public record Connection(QueuePair queuePair, LlpParameters parameters) {

    /**
     * For connection managers: completes with the connection once {@code qp} reached RTS on its stream, or
     * exceptionally if it failed first.
     */
    public static java.util.concurrent.CompletableFuture<Connection> whenEstablished(QueuePair qp,
            LlpParameters parameters) {
        return qp.established().thenApply(event -> new Connection(qp, parameters));
    }

    /**
     * For connection managers: completes {@code result} with the connection once {@code qp} reached RTS on its
     * stream, or exceptionally if it failed first.
     */
    public static void establish(QueuePair qp, LlpParameters parameters,
            java.util.concurrent.CompletableFuture<Connection> result) {
        whenEstablished(qp, parameters).whenComplete((connection, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(connection);
            }
        });
    }

    /** Starts a graceful disconnect. */
    public void disconnect() {
        queuePair.disconnect();
    }
}
