package org.rddp.transport.sctp;

/**
 * What one {@link SctpConnectionManager} takes on at most. Queue pairs are sessions on the streams of associations
 * (RFC 5043 §5), so the associations bound them too: {@link SctpConnectionManager#STREAMS} each.
 *
 * @param associations          associations at once, accepted and connected; one more arriving is aborted at once,
 *                              a connect that needs one more fails
 * @param pendingPerAssociation Initiates on one association that may wait for the ULP; the next is refused with
 *                              a Session Terminate (RFC 5043 §6.4) without reaching it
 * @param memory                octets of buffers all associations may take together, each counting
 *                              {@link #octetsPerAssociation} (what this side allocates for it, and the socket
 *                              buffers the stack gives it, which fill as data queues); it lowers the association
 *                              limit
 */
public record SctpLimits(int associations, int pendingPerAssociation, long memory) {

    /** Validates. */
    public SctpLimits {
        if (associations < 1 || pendingPerAssociation < 1 || memory < 1) {
            throw new IllegalArgumentException("limits of at least 1, not " + associations + " associations, "
                    + pendingPerAssociation + " pending Initiates and " + memory + " octets");
        }
    }

    /** The defaults: 4096 associations, 16 Initiates waiting for the ULP on each, no separate memory limit. */
    public static SctpLimits defaults() {
        return new SctpLimits(4096, 16, Long.MAX_VALUE);
    }

    /** These limits with another number of associations. */
    public SctpLimits withAssociations(int count) {
        return new SctpLimits(count, pendingPerAssociation, memory);
    }

    /** These limits with another number of Initiates that may wait for the ULP on one association. */
    public SctpLimits withPendingPerAssociation(int count) {
        return new SctpLimits(associations, count, memory);
    }

    /** These limits with another memory limit, in octets. */
    public SctpLimits withMemory(long octets) {
        return new SctpLimits(associations, pendingPerAssociation, octets);
    }

    /**
     * The octets one association counts for on {@code stack}: this side's send and receive buffers (a chunk each,
     * at most an IP packet) and the stack's socket buffers.
     */
    public static long octetsPerAssociation(SctpStack stack) {
        return 2L * DdpAssociation.LARGEST_BUFFER + stack.socketBufferOctets();
    }

    /** The associations these limits allow on {@code stack}: the smaller of the two limits. */
    public long associationsOn(SctpStack stack) {
        return Math.min(associations, memory / octetsPerAssociation(stack));
    }
}
