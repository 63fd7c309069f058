package org.rddp.verbs;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import org.rddp.wire.PrivateData;

/** An incoming connection request, to accept or reject exactly once. */
public interface ConnectionRequest {
    /** The initiator's address. */
    SocketAddress remoteAddress();

    /** The initiator's private data (the ULP's part; the enhanced data is in the fields below). */
    PrivateData privateData();

    /** The initiator's enhanced connection data (RFC 6581 §9), or null when it did not use enhanced setup. */
    org.rddp.rdmap.EnhancedConnectionData enhancedData();

    /** Whether the initiator used enhanced setup (RFC 6581); if not, IRD and ORD are the ULP's to agree. */
    default boolean enhanced() {
        return enhancedData() != null;
    }

    /** The initiator's IRD, or -1 when not {@link #enhanced()}. */
    default int initiatorIrd() {
        return enhanced() ? enhancedData().ird() : -1;
    }

    /** The initiator's ORD, or -1 when not {@link #enhanced()}. */
    default int initiatorOrd() {
        return enhanced() ? enhancedData().ord() : -1;
    }

    /** Whether the initiator asked for the peer-to-peer model. */
    default boolean peerToPeer() {
        return enhanced() && enhancedData().peerToPeer();
    }

    /** Accepts with {@code qp}, which must be IDLE; completes when it is in RTS. */
    CompletableFuture<Connection> accept(QueuePair qp, AcceptOptions options);

    /** Rejects at the ULP's direction, with private data for the initiator. */
    void reject(PrivateData privateData);
}
