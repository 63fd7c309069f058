package org.rddp.transport.sctp;

/**
 * What one {@link SctpConnectionManager} takes on at most. Queue pairs are sessions on the streams of associations
 * (RFC 5043 §5), so the associations bound them too: {@code streams} each, or as many as the peer grants if fewer.
 *
 * @param associations          associations at once, accepted and connected; one more arriving is aborted at once,
 *                              a connect that needs one more fails
 * @param pendingPerAssociation Initiates on one association that may wait for the ULP at once: when that many
 *                              wait, the association reads nothing more (its peer's SCTP flow control holds the
 *                              rest back) until the ULP answers one or {@code ulpWait} has passed; after that, an
 *                              Initiate beyond the limit is refused with a Session Terminate (RFC 5043 §6.4)
 *                              without reaching the ULP
 * @param memory                octets of buffers all associations may take together, each counting
 *                              {@link #octetsPerAssociation} (what this side allocates for it, and the socket
 *                              buffers the stack gives it, which fill as data queues), and the chunks their sessions
 *                              hold ahead of their turn; it lowers the association limit
 * @param streams               streams each way asked for on every association, 1 to 65,535 (RFC 9260 §3.3.2): the
 *                              queue pairs one association carries; when every stream of the associations to a
 *                              peer is taken, the next queue pair gets an association of its own
 * @param heldPerAssociation    octets one association may hold because of its peer: chunks that came ahead of their
 *                              turn (RFC 5043 §10), copies and bookkeeping, and session control answers waiting for
 *                              room; a chunk beyond it ends its session with a Terminate, an answer beyond it the
 *                              association. A sender has at most what its send buffer holds
 *                              unacknowledged beyond a lost chunk (4 MiB on either backend here), so the default
 *                              leaves room for a peer whose buffer is twice that; the process holds a quarter of
 *                              the heap's limit at most, whatever the managers allow
 * @param setupTimeout          how long an accepted association has to show the peer's Adaptation Layer Indication
 *                              (RFC 5043 §5.1, it comes with the handshake) before it is aborted: a stranger's
 *                              association that never says it speaks DDP is not kept. A connect's own timeout
 *                              ({@code ConnectOptions}) bounds the active side
 * @param ulpWait               how long an association stops reading while {@code pendingPerAssociation} Initiates
 *                              wait for the ULP: it stalls the association's other sessions meanwhile, so it is
 *                              short; then it reads on and refuses what is beyond the limit
 */
public record SctpLimits(int associations, int pendingPerAssociation, long memory, int streams,
        long heldPerAssociation, java.time.Duration setupTimeout, java.time.Duration ulpWait) {
    /** The default {@link #heldPerAssociation}: 8 MiB. */
    public static final long HELD_PER_ASSOCIATION = 8L << 20;
    /**
     * Streams asked for each way on every association by default ({@link #withStreams} asks for up to 65,535): the
     * queue pairs it can carry (the peer may grant fewer). When every stream of an association to a peer is taken,
     * the next queue pair gets an association of its own.
     */
    public static final int STREAMS = 1024;
    /** The default {@link #setupTimeout}: 10 s. */
    public static final java.time.Duration SETUP_TIMEOUT = java.time.Duration.ofSeconds(10);
    /** The default {@link #ulpWait}: 1 s. */
    public static final java.time.Duration ULP_WAIT = java.time.Duration.ofSeconds(1);
    /** The most streams an association has each way (a 16-bit count, RFC 9260 §3.3.2). */
    public static final int MAX_STREAMS = 65_535;
    /**
     * Octets one stream counts for in {@link #octetsPerAssociation}: the stack's state for it each way (usrsctp's
     * stream structures: about 100 octets, measured with 65,535 streams) and this side's session, which is made when
     * the stream is first used (a peer can have every stream used: about 400 octets with its state machine, window
     * and queues, none of them holding anything yet).
     */
    static final int OCTETS_PER_STREAM = 512;

    /** Validates. */
    public SctpLimits {
        if (associations < 1 || pendingPerAssociation < 1 || memory < 1 || heldPerAssociation < 0) {
            throw new IllegalArgumentException("limits of at least 1, not " + associations + " associations, "
                    + pendingPerAssociation + " pending Initiates and " + memory + " octets, and no negative held "
                    + "octets (" + heldPerAssociation + ")");
        }
        if (setupTimeout == null || setupTimeout.isNegative() || setupTimeout.isZero()) {
            throw new IllegalArgumentException("a positive setup timeout, not " + setupTimeout);
        }
        if (ulpWait == null || ulpWait.isNegative()) {
            throw new IllegalArgumentException("a wait for the ULP of zero or more, not " + ulpWait);
        }
        if (streams < 1 || streams > MAX_STREAMS) {
            throw new IllegalArgumentException("an association has 1 to " + MAX_STREAMS + " streams each way, not "
                    + streams);
        }
    }

    /**
     * The defaults: 4096 associations, 16 Initiates waiting for the ULP on each, no separate memory limit,
     * {@link #STREAMS} streams, {@link #HELD_PER_ASSOCIATION} octets held ahead of their turn per association,
     * {@link #SETUP_TIMEOUT} for an accepted association to show it speaks DDP, and {@link #ULP_WAIT} for the ULP to
     * answer one of as many Initiates as the limit before the association reads on.
     */
    public static SctpLimits defaults() {
        return new SctpLimits(4096, 16, Long.MAX_VALUE, STREAMS, HELD_PER_ASSOCIATION, SETUP_TIMEOUT, ULP_WAIT);
    }

    /** These limits with another number of associations. */
    public SctpLimits withAssociations(int count) {
        return new SctpLimits(count, pendingPerAssociation, memory, streams, heldPerAssociation, setupTimeout,
                ulpWait);
    }

    /** These limits with another number of Initiates that may wait for the ULP on one association. */
    public SctpLimits withPendingPerAssociation(int count) {
        return new SctpLimits(associations, count, memory, streams, heldPerAssociation, setupTimeout,
                ulpWait);
    }

    /** These limits with another memory limit, in octets. */
    public SctpLimits withMemory(long octets) {
        return new SctpLimits(associations, pendingPerAssociation, octets, streams, heldPerAssociation, setupTimeout,
                ulpWait);
    }

    /** These limits asking for {@code count} streams each way on every association (the peer may grant fewer). */
    public SctpLimits withStreams(int count) {
        return new SctpLimits(associations, pendingPerAssociation, memory, count, heldPerAssociation, setupTimeout,
                ulpWait);
    }

    /** These limits with another number of octets one association's sessions may hold ahead of their turn. */
    public SctpLimits withHeldPerAssociation(long octets) {
        return new SctpLimits(associations, pendingPerAssociation, memory, streams, octets, setupTimeout,
                ulpWait);
    }

    /** These limits giving an accepted association {@code timeout} to show the peer's Adaptation Layer Indication. */
    public SctpLimits withSetupTimeout(java.time.Duration timeout) {
        return new SctpLimits(associations, pendingPerAssociation, memory, streams, heldPerAssociation, timeout,
                ulpWait);
    }

    /** These limits letting an association stop reading for {@code wait} while its Initiates wait for the ULP. */
    public SctpLimits withUlpWait(java.time.Duration wait) {
        return new SctpLimits(associations, pendingPerAssociation, memory, streams, heldPerAssociation, setupTimeout,
                wait);
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
        return associationsOn(stack, 0);
    }

    /** The associations these limits allow on {@code stack} while their sessions hold {@code held} octets early. */
    long associationsOn(SctpStack stack, long held) {
        return Math.min(associations, Math.max(0, memory - held) / octetsPerAssociation(stack));
    }
}
