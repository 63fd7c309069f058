package org.rddp.verbs.testing;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import org.rddp.work.QpEvent;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Listener;

/** An initiator and a responder side over one transport, connected on demand. */
public final class Peers implements AutoCloseable {
    final TransportFixture transport;
    final Side initiator;
    final Side responder;
    Listener listener;
    Connection initiatorConnection;
    Connection responderConnection;

    /** Two sides with IDLE queue pairs of {@code depth} requests, each on its own device. */
    Peers(TransportFixture transport, int depth) {
        this.transport = transport;
        this.initiator = new Side("initiator", 4 * depth + 64);
        this.responder = new Side("responder", 4 * depth + 64);
        initiator.createQueuePair(depth, null);
        responder.createQueuePair(depth, null);
    }

    /** Connects with enhanced client-server setup, IRD = ORD = {@code depth} on both sides. */
    Peers connect(int ird, int ord) throws Exception {
        return connect(ConnectOptions.of(ird, ord), new AcceptOptions(org.rddp.wire.PrivateData.EMPTY, ird, ord));
    }

    /** Connects; waits until both queue pairs are in RTS. */
    Peers connect(ConnectOptions options, AcceptOptions accept) throws Exception {
        SocketAddress address = transport.nextAddress();
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        listener = transport.responder().listen(address,
                request -> request.accept(responder.qp, accept).whenComplete((connection, failure) -> {
                    if (failure != null) {
                        accepted.completeExceptionally(failure);
                    } else {
                        accepted.complete(connection);
                    }
                }));
        initiatorConnection = Waits.join(transport.initiator().connect(initiator.qp, address, options));
        responderConnection = Waits.join(accepted);
        initiator.await(QpEvent.ESTABLISHED);
        responder.await(QpEvent.ESTABLISHED);
        return this;
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
    }
}
