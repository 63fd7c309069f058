package org.rddp.llp;

/**
 * What is counted ({@link Counters}, per connection manager and for the process): what peers were refused, what
 * they sent that broke a protocol, which connections ended in a Terminate or were lost, and what the LLP had to send
 * again.
 */
public enum Counter {
    /** Incoming connections or associations refused before a ULP saw them: limits, or not RDDP at all. */
    CONNECTIONS_REFUSED("connections refused"),
    /** MPA startups or SCTP sessions a peer broke: a malformed or late startup frame, an illegal session sequence. */
    MALFORMED_SETUPS("malformed setups"),
    /**
     * SCTP chunks that came ahead of their turn (RFC 5043 §10) and were not kept: on a stream with no session open,
     * past what a session may hold ({@code SctpLimits.heldPerAssociation}, the manager's memory, the process's), or
     * the rest of a session this side ended.
     */
    EARLY_CHUNKS_REFUSED("early chunks refused"),
    /** Received FPDUs that failed their CRC or Marker check (RFC 5044 §6, §5). */
    MALFORMED_FPDUS("malformed FPDUs"),
    /** Terminates this side sent (RFC 5040 §5.2): a peer broke DDP or RDMAP, or a local error. */
    TERMINATES_SENT("Terminates sent"),
    /** Terminates a peer sent. */
    TERMINATES_RECEIVED("Terminates received"),
    /** Streams lost under a queue pair: the peer vanished, reset the connection, or aborted the association. */
    CONNECTIONS_LOST("connections lost"),
    /**
     * DATA chunks the SCTP stack sent again, after a timeout or a fast retransmit: kernel SCTP counts them per
     * association (SCTP_GET_ASSOC_STATS), read by the association's loop at most once a second while it has traffic
     * and when it ends, and summed per manager; usrsctp counts them for the process alone (its sctps_sendretransdata:
     * one stack per process).
     */
    SCTP_RETRANSMISSIONS("SCTP retransmissions"),
    /**
     * Changes of an SCTP association's paths the stack reported (a path failed, potentially failed, came back, was
     * added, or became the primary): each reaches the association's queue pairs as {@code PATH_MIGRATED}.
     */
    SCTP_PATH_CHANGES("SCTP path changes"),
    /** SCTP packets usrsctp was not given: their CRC32c did not match (RFC 9260 §6.8). */
    SCTP_BAD_CHECKSUMS("SCTP packets with a bad checksum"),
    /**
     * Exceptions thrown by the application's callbacks on a loop thread (a queue pair's event handler, a listener's
     * request handler, an SCTP chunk tap): each is counted and handed to that thread's uncaught-exception handler,
     * and the connection carries on as if the callback had returned (a request left unanswered is refused).
     */
    CALLBACK_FAILURES("exceptions thrown by callbacks"),
    /**
     * Throwables a loop caught and went on after ({@code org.rddp.loop.Loop#errors}): a stream's step that failed
     * (the stream was ended), or a bug in a command; each also went to the loop's error handler.
     */
    LOOP_ERRORS("errors loops went on after");

    private final String label;

    Counter(String label) {
        this.label = label;
    }

    /** How the CLI names it: {@code connections refused}. */
    public String label() {
        return label;
    }
}
