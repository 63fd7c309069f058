package org.rddp.transport.mpa;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.rddp.rdmap.RtrType;
import org.rddp.mpa.MpaFpdu;

/**
 * How one side runs MPA, for every connection of a {@link MpaConnectionManager} (what siw takes as module
 * parameters). Per-connection wishes (private data, IRD/ORD, enhanced setup, peer-to-peer) come with
 * {@link org.rddp.verbs.ConnectOptions}; these settings add to them.
 *
 * @param revision        the highest MPA revision this side speaks: 2 (RFC 6581) or 1 (RFC 5044 only: enhanced
 *                        requests are then refused as malformed, as an RFC 5044 responder does, and never sent)
 * @param markers         M: ask the peer to put Markers into what it sends (RFC 5044 §7.1.1)
 * @param crc             C: ask for CRCs; they are used when either side asks (RFC 5044 §4.4)
 * @param peerToPeer      as initiator, always ask for the peer-to-peer model (enhanced setup only)
 * @param rtrTypes        the RTR messages this side can send as initiator and accept as responder (RFC 6581 §9.2);
 *                        a responder proposes the first of WRITE, READ, SEND it has when none requested fits
 * @param retryRevision1  as initiator, retry once with revision 1 when the responder closes the connection on an
 *                        enhanced request (RFC 6581 §10); IRD/ORD and the model are then the ULP's business
 * @param startupTimeout  how long a responder waits for the Request (RFC 5044 §7.1.2 rule 10)
 * @param mtu             the path MTU FPDUs are cut for, so that each fits one TCP segment (RFC 5044 §4.5's EMSS);
 *                        0 takes the MTU of the local interface, which is right unless the path has a smaller one
 * @param maxStartups     connections in startup at once (accepted, their Request not yet answered by the ULP, and
 *                        connecting); when one more is accepted, a connection still waiting for its Request (the
 *                        oldest of the address with the most such) is reset to make room, so that a flood of silent
 *                        connections cannot keep clients out; if none waits, the new one is; the refusal says why
 * @param maxStartupsPerSource accepted connections in startup from one address at once; one more from it is reset.
 *                        By default as many as {@code maxStartups}: a client may open a thousand queue pairs'
 *                        connections at once; a server whose clients open few sets it lower
 * @param maxConnections  connections in Full Operation at once; a Request beyond them is rejected (an MPA Reply
 *                        with R set, RFC 5044 §7.1.2) without reaching the ULP
 * @param idleTimeout     a connection in Full Operation that sends and receives nothing for this long is reset, and
 *                        its queue pair hears the connection was lost (noticed within twice this); zero: never
 * @param memoryLimit     octets of buffers all connections may take together, at
 *                        {@link #BUFFER_OCTETS_PER_CONNECTION} each (direct memory, outside the heap), counted
 *                        from accept or connect on: a connection beyond it is reset at accept, a connect fails at
 *                        once
 * @param closeTimeout    once this side has closed (a disconnect, or after sending a Terminate: RFC 5040 §5.4 has the
 *                        stream closed gracefully so that the Terminate arrives), how long the peer has to close its
 *                        side too; then the connection is reset (noticed within twice this)
 * @param fpduTimeout     how long a connection may stop in the middle of an FPDU, with no further octet of it, before
 *                        it is reset (noticed within twice this): longer than a peer's stall that a connection must
 *                        survive, short of holding a stranger's half-sent FPDU for ever
 * @param mptcp           open every socket as Multipath TCP ({@link Mptcp}, RFC 8684): a connection to a peer that
 *                        listens with MPTCP too can then use every path the kernel's path manager gives it; with one
 *                        that does not, it is plain TCP ({@link Mptcp.Protocol#TCP_FALLBACK}). A host without MPTCP
 *                        refuses to listen or connect, saying why
 */
public record MpaOptions(int revision, boolean markers, boolean crc, boolean peerToPeer, Set<RtrType> rtrTypes,
        boolean retryRevision1, Duration startupTimeout, int mtu, int maxStartups, int maxStartupsPerSource,
        int maxConnections, Duration idleTimeout, long memoryLimit, Duration closeTimeout, Duration fpduTimeout,
        boolean mptcp) {
    /**
     * The buffers one connection in Full Operation takes: what its stream holds to write (FPDUs gathered into one
     * write, or what TCP has not taken yet) and the one FPDU it reassembles when a read ends inside it.
     */
    public static final int BUFFER_OCTETS_PER_CONNECTION = MpaStream.PENDING_CAPACITY
            + MpaFpdu.fpduLength(MpaFpdu.MAX_ULPDU_LENGTH_FIELD);

    /** Validates. */
    public MpaOptions {
        if (revision != 1 && revision != 2) {
            throw new IllegalArgumentException("MPA revision 1 or 2, not " + revision);
        }
        if (rtrTypes == null || rtrTypes.contains(RtrType.NONE) || startupTimeout == null || idleTimeout == null
                || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("RTR types (without NONE), a startup timeout and an idle timeout (zero: "
                    + "none) are required");
        }
        if (closeTimeout == null || fpduTimeout == null || !closeTimeout.isPositive() || !fpduTimeout.isPositive()) {
            throw new IllegalArgumentException("a close timeout and an FPDU timeout, both positive, are required");
        }
        if (peerToPeer && revision < 2) {
            throw new IllegalArgumentException("peer-to-peer needs revision 2");
        }
        if (revision >= 2 && rtrTypes.isEmpty()) {
            throw new IllegalArgumentException("revision 2 needs at least one RTR type (RFC 6581 §9.2: a responder "
                    + "MUST support one)");
        }
        if (mtu != 0 && (mtu < MpaConnectionManager.SMALLEST_MTU || mtu > MpaConnectionManager.LARGEST_IP_PACKET)) {
            throw new IllegalArgumentException("an MTU from " + MpaConnectionManager.SMALLEST_MTU + " to "
                    + MpaConnectionManager.LARGEST_IP_PACKET + " (or 0: the interface's), not " + mtu);
        }
        if (maxStartups < 1 || maxStartupsPerSource < 1 || maxConnections < 1) {
            throw new IllegalArgumentException("limits of at least 1, not " + maxStartups + " startups, "
                    + maxStartupsPerSource + " from one address and " + maxConnections + " connections");
        }
        if (memoryLimit < BUFFER_OCTETS_PER_CONNECTION) {
            throw new IllegalArgumentException("a memory limit of at least one connection's buffers ("
                    + BUFFER_OCTETS_PER_CONNECTION + " octets), not " + memoryLimit);
        }
        rtrTypes = Set.copyOf(rtrTypes);
    }

    /**
     * The defaults: revision 2, no Markers, CRC on (RFC 5044 §4.4: the default MUST be to use CRCs), client-server
     * unless a connection asks, every RTR type, no revision 1 retry, 10 s startup timeout, the interface's MTU,
     * at most 1024 connections in startup (from one address or many) and 65536 in Full Operation, no idle timeout
     * (an idle queue pair is a normal thing in RDMA), buffers of at most half the heap's limit
     * ({@link Runtime#maxMemory()}, which is also the JVM's limit on direct memory unless
     * {@code -XX:MaxDirectMemorySize} says otherwise: a process that takes more connections than that is refused them,
     * instead of failing to allocate), 10 s for the peer to close after this side did, 60 s for an FPDU to go on
     * (twice a 30 s stall of the peer), and TCP rather than Multipath TCP.
     */
    public static MpaOptions defaults() {
        return new MpaOptions(2, false, true, false, EnumSet.of(RtrType.SEND, RtrType.WRITE, RtrType.READ), false,
                Duration.ofSeconds(10), 0, 1024, 1024, 65536, Duration.ZERO,
                Math.max(BUFFER_OCTETS_PER_CONNECTION, Runtime.getRuntime().maxMemory() / 2), Duration.ofSeconds(10),
                Duration.ofSeconds(60), false);
    }

    /** Connections the memory limit allows: {@link #memoryLimit()} over their buffers. */
    public long connectionsInMemory() {
        return memoryLimit / BUFFER_OCTETS_PER_CONNECTION;
    }

    /** These options with Markers asked for or not. */
    public MpaOptions withMarkers(boolean wanted) {
        return new MpaOptions(revision, wanted, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options with CRCs asked for or not. */
    public MpaOptions withCrc(boolean wanted) {
        return new MpaOptions(revision, markers, wanted, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options speaking at most {@code highest}. */
    public MpaOptions withRevision(int highest) {
        return new MpaOptions(highest, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options always asking for peer-to-peer with exactly {@code rtr} as the RTR this side can send. */
    public MpaOptions withPeerToPeer(RtrType rtr) {
        return new MpaOptions(revision, markers, crc, true, EnumSet.of(rtr), retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options with the RTR types this side supports. */
    public MpaOptions withRtrTypes(Set<RtrType> types) {
        return new MpaOptions(revision, markers, crc, peerToPeer, types, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options retrying with revision 1 when an enhanced request is refused. */
    public MpaOptions withRetryRevision1(boolean retry) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retry, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options cutting FPDUs for a path MTU of {@code octets} (0: the local interface's MTU). */
    public MpaOptions withMtu(int octets) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, octets,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options with another startup timeout. */
    public MpaOptions withStartupTimeout(Duration timeout) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, timeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options with other limits: connections in startup, and in Full Operation, at once. */
    public MpaOptions withLimits(int startups, int connections) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                startups, maxStartupsPerSource, connections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options with an idle timeout for connections in Full Operation (zero: none). */
    public MpaOptions withIdleTimeout(Duration timeout) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, timeout, memoryLimit, closeTimeout, fpduTimeout,
                mptcp);
    }

    /**
     * These options with another limit on the octets of buffers all connections take together,
     * {@link #BUFFER_OCTETS_PER_CONNECTION} each.
     */
    public MpaOptions withMemoryLimit(long octets) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, octets, closeTimeout, fpduTimeout,
                mptcp);
    }

    /** These options with another limit on the accepted connections in startup from one address at once. */
    public MpaOptions withStartupsPerSource(int startups) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, startups, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout, mptcp);
    }

    /** These options giving the peer {@code timeout} to close once this side has closed. */
    public MpaOptions withCloseTimeout(Duration timeout) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, timeout, fpduTimeout,
                mptcp);
    }

    /** These options opening their sockets as Multipath TCP ones, or as TCP ones. */
    public MpaOptions withMptcp(boolean wanted) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, fpduTimeout,
                wanted);
    }

    /** These options resetting a connection stopped in the middle of an FPDU for {@code timeout}. */
    public MpaOptions withFpduTimeout(Duration timeout) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxStartupsPerSource, maxConnections, idleTimeout, memoryLimit, closeTimeout, timeout,
                mptcp);
    }
}
