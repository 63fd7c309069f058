package org.rddp.verbs;

import java.io.IOException;
import org.rddp.wire.PrivateData;

/**
 * The peer refused the connection: its ULP (a Reject with private data) or its provider (a non-ULP reject, an
 * IRD/ORD or RTR mismatch). Carries what the peer said.
 */
public final class ConnectionRejectedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean byUlp;
    private final int peerIrd;
    private final int peerOrd;
    private final transient PrivateData privateData;

    /**
     * @param reason      what happened, for a person
     * @param byUlp       rejected by the peer's ULP rather than its provider
     * @param peerIrd     the responder's IRD if it sent one, else -1
     * @param peerOrd     the responder's ORD if it sent one, else -1
     * @param privateData the responder's private data
     */
    public ConnectionRejectedException(String reason, boolean byUlp, int peerIrd, int peerOrd,
            PrivateData privateData) {
        super(reason);
        this.byUlp = byUlp;
        this.peerIrd = peerIrd;
        this.peerOrd = peerOrd;
        this.privateData = privateData;
    }

    /** Whether the peer's ULP rejected (rather than its provider). */
    public boolean byUlp() {
        return byUlp;
    }

    /** The responder's IRD, or -1. */
    public int peerIrd() {
        return peerIrd;
    }

    /** The responder's ORD, or -1. */
    public int peerOrd() {
        return peerOrd;
    }

    /** The responder's private data. */
    public PrivateData privateData() {
        return privateData;
    }
}
