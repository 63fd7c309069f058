package org.rddp.verbs;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Connection setup for queue pairs, in the manner of librdmacm: listen, connect with private data and IRD/ORD
 * and RTR preferences, accept or reject with private data. Each transport implements it: MPA over TCP
 * (RFC 5044, RFC 6581) and the SCTP adaptation (RFC 5043, RFC 6581 §7).
 */
public interface ConnectionManager extends AutoCloseable {

    /**
     * Listens at {@code address}; every incoming request goes to {@code handler}, which must accept or reject it
     * (on any thread, now or later).
     */
    Listener listen(SocketAddress address, Consumer<ConnectionRequest> handler) throws IOException;

    /**
     * Connects {@code qp}, which must be IDLE, to the listener at {@code remote}. The future completes when the
     * queue pair is in RTS, or exceptionally: with {@link ConnectionRejectedException} when the peer (or its
     * provider) refused, with an {@link IOException} when the transport failed.
     */
    CompletableFuture<Connection> connect(QueuePair qp, SocketAddress remote, ConnectOptions options);

    /**
     * The loops the manager's streams live on ({@link org.rddp.loop.Progress}); a manual one is driven by the thread
     * that made the manager. Empty for a manager without loops of its own.
     */
    default java.util.List<org.rddp.loop.Loop> loops() {
        return java.util.List.of();
    }

    /**
     * Its counters ({@link org.rddp.llp.Counter}): what it refused, what its peers broke, its connections' Terminates
     * and losses. Its {@link ConnectionManagerView} shows the same through JMX while it is open. A manager that counts
     * nothing has every counter at zero.
     */
    default java.util.Map<org.rddp.llp.Counter, Long> counters() {
        return org.rddp.llp.Counters.create().snapshot();
    }

    /** The statistics of the queue pairs it connected that the application still holds. */
    default java.util.List<QpStatistics> statistics() {
        return java.util.List.of();
    }

    /** Stops listening everywhere and releases the transport, ending the connections it set up. */
    @Override
    void close() throws IOException;
}
