package org.rddp.cli;

/** What went wrong talking to the peer, and whether the peer just closed the connection. */
public final class PeerException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean disconnected;

    public PeerException(String message, boolean disconnected) {
        super(message);
        this.disconnected = disconnected;
    }

    /** A failure that is not a disconnect. */
    public PeerException(String message) {
        this(message, false);
    }

    /** Whether the connection closed (flushed work) rather than the protocol going wrong. */
    public boolean disconnected() {
        return disconnected;
    }
}
