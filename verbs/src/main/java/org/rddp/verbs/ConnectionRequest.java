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

    /** Whether the initiator used enhanced setup (RFC 6581); if not, IRD and ORD are the ULP's to agree. */
    boolean enhanced();

    /** The initiator's IRD, or -1 when not {@link #enhanced()}. */
    int initiatorIrd();

    /** The initiator's ORD, or -1 when not {@link #enhanced()}. */
    int initiatorOrd();

    /** Whether the initiator asked for the peer-to-peer model. */
    boolean peerToPeer();

    /** Accepts with {@code qp}, which must be IDLE; completes when it is in RTS. */
    CompletableFuture<Connection> accept(QueuePair qp, AcceptOptions options);

    /** Rejects at the ULP's direction, with private data for the initiator. */
    void reject(PrivateData privateData);
}
