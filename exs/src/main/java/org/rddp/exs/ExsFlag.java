package org.rddp.exs;

/** Flags of a send or a receive. */
public enum ExsFlag {
    /**
     * A send: the block stays advertised and serves every receive of the peer from now on, read again each time
     * (the sender changes it when it likes); nothing more may be sent on the socket. A receive: it takes every
     * message from now on, each placed at the start of its memory (or where {@code send_offset} says), with an
     * event per message. Both sides of a connection cannot be persistent (section 4.3 of the paper).
     */
    PERSISTENT,
    /** With {@link #PERSISTENT} on a send: a {@link ExsEvent.Type#READ} event whenever the peer has read it. */
    NOTIFY,
    /**
     * A receive: it finishes only when its whole length is filled, from as many messages as that takes (as
     * {@code MSG_WAITALL}), or when the connection ends; without it a receive takes from one message.
     */
    WAITALL
}
