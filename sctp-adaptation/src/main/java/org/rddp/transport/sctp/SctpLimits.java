package org.rddp.transport.sctp;

/**
 * What one {@link SctpConnectionManager} takes on at most. Queue pairs are sessions on the streams of associations
 * (RFC 5043 §5), so the associations bound them too: {@code streams} each, or as many as the peer grants if fewer.
 *
 * @param associations          associations at once, accepted and connected; one more arriving is aborted at once,
 *                              a connect that needs one more fails
 * @param pendingPerAssociation Initiates on one association that may wait for the ULP; the next is refused with
 *                              a Session Terminate (RFC 5043 §6.4) without reaching it
 * @param memory                octets of buffers all associations may take together, each counting
 *                              {@link #octetsPerAssociation} (what this side allocates for it, and the socket
 *                              buffers the stack gives it, which fill as data queues); it lowers the association
 *                              limit
 * @param streams               streams each way asked for on every association, 1 to 65,535 (RFC 9260 §3.3.2): the
 *                              queue pairs one association carries; when every stream of the associations to a
 *                              peer is taken, the next queue pair gets an association of its own
 */
public record SctpLimits(int associations, int pendingPerAssociation, long memory, int streams) {
    /** The most streams an association has each way (a 16-bit count, RFC 9260 §3.3.2). */
    public static final int MAX_STREAMS = 65_535;
    /**
     * Octets one stream counts for in {@link #octetsPerAssociation}: the stack's state for it each way (usrsctp's
     * stream structures: about 100 octets, measured with 65,535 streams) and this side's reference to its session,
     * which is made only when the stream is first used.
     */
    static final int OCTETS_PER_STREAM = 128;

    /** Validates. */
    public SctpLimits {
        if (associations < 1 || pendingPerAssociation < 1 || memory < 1) {
            throw new IllegalArgumentException("limits of at least 1, not " + associations + " associations, "
                    + pendingPerAssociation + " pending Initiates and " + memory + " octets");
        }
        if (streams < 1 || streams > MAX_STREAMS) {
            throw new IllegalArgumentException("an association has 1 to " + MAX_STREAMS + " streams each way, not "
                    + streams);
        }
    }

    /**
     * The defaults: 4096 associations, 16 Initiates waiting for the ULP on each, no separate memory limit,
     * {@link SctpConnectionManager#STREAMS} streams.
     */
    public static SctpLimits defaults() {
        return new SctpLimits(4096, 16, Long.MAX_VALUE, SctpConnectionManager.STREAMS);
    }

    /** These limits with another number of associations. */
    public SctpLimits withAssociations(int count) {
        return new SctpLimits(count, pendingPerAssociation, memory, streams);
    }

    /** These limits with another number of Initiates that may wait for the ULP on one association. */
    public SctpLimits withPendingPerAssociation(int count) {
        return new SctpLimits(associations, count, memory, streams);
    }

    /** These limits with another memory limit, in octets. */
    public SctpLimits withMemory(long octets) {
        return new SctpLimits(associations, pendingPerAssociation, octets, streams);
    }

    /** These limits asking for {@code count} streams each way on every association (the peer may grant fewer). */
    public SctpLimits withStreams(int count) {
        return new SctpLimits(associations, pendingPerAssociation, memory, count);
    }

    /**
     * The octets one association counts for on {@code stack}: this side's buffers (a chunk each, at most an IP
     * packet: the one received, the one being built and the one held for bundling), the stack's socket buffers, and
     * its streams ({@value #OCTETS_PER_STREAM} each).
     */
    public long octetsPerAssociation(SctpStack stack) {
        return (long) DdpAssociation.BUFFERS * DdpAssociation.LARGEST_BUFFER + stack.socketBufferOctets()
                + (long) streams * OCTETS_PER_STREAM;
    }

    /** The associations these limits allow on {@code stack}: the smaller of the two limits. */
    public long associationsOn(SctpStack stack) {
        return Math.min(associations, memory / octetsPerAssociation(stack));
    }
}
