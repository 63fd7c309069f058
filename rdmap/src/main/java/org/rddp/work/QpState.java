package org.rddp.work;

/** Queue pair states of the iWARP verbs (RDMAC verbs §6.2; Linux siw uses the same five). */
public enum QpState {
    /** Created or reset: receives may be posted, nothing moves on the wire. */
    IDLE,
    /** Ready to send: connected, both queues process work. */
    RTS,
    /** A graceful disconnect is under way: posted sends finish, new work is refused. */
    CLOSING,
    /** A Terminate was sent or received; the LLP stream is being torn down. */
    TERMINATE,
    /** Broken or torn down: outstanding work is flushed, new work is refused. */
    ERROR
}
