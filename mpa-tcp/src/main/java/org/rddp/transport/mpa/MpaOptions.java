package org.rddp.transport.mpa;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.rddp.llp.RtrType;
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
 *                        connecting); one more accepted is reset, and the refusal says why
 * @param maxConnections  connections in Full Operation at once; a Request beyond them is rejected (an MPA Reply
 *                        with R set, RFC 5044 §7.1.2) without reaching the ULP
 * @param idleTimeout     a connection in Full Operation that sends and receives nothing for this long is reset, and
 *                        its queue pair hears the connection was lost (noticed within twice this); zero: never
 * @param memoryLimit     octets of buffers all connections may take together, at
 *                        {@link #BUFFER_OCTETS_PER_CONNECTION} each (direct memory, outside the heap), counted
 *                        from accept or connect on: a connection beyond it is reset at accept, a connect fails at
 *                        once
 */
public record MpaOptions(int revision, boolean markers, boolean crc, boolean peerToPeer, Set<RtrType> rtrTypes,
        boolean retryRevision1, Duration startupTimeout, int mtu, int maxStartups, int maxConnections,
        Duration idleTimeout, long memoryLimit) {
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
        if (maxStartups < 1 || maxConnections < 1) {
            throw new IllegalArgumentException("limits of at least 1, not " + maxStartups + " startups and "
                    + maxConnections + " connections");
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
     * at most 1024 connections in startup and 65536 in Full Operation, no idle timeout (an idle queue pair is a
     * normal thing in RDMA), and buffers of at most half the heap's limit ({@link Runtime#maxMemory()}, which is
     * also the JVM's limit on direct memory unless {@code -XX:MaxDirectMemorySize} says otherwise): a process that
     * takes more connections than that is refused them, instead of failing to allocate.
     */
    public static MpaOptions defaults() {
        return new MpaOptions(2, false, true, false, EnumSet.of(RtrType.SEND, RtrType.WRITE, RtrType.READ), false,
                Duration.ofSeconds(10), 0, 1024, 65536, Duration.ZERO,
                Math.max(BUFFER_OCTETS_PER_CONNECTION, Runtime.getRuntime().maxMemory() / 2));
    }

    /** Connections the memory limit allows: {@link #memoryLimit()} over their buffers. */
    public long connectionsInMemory() {
        return memoryLimit / BUFFER_OCTETS_PER_CONNECTION;
    }

    /** These options with Markers asked for or not. */
    public MpaOptions withMarkers(boolean wanted) {
        return new MpaOptions(revision, wanted, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options with CRCs asked for or not. */
    public MpaOptions withCrc(boolean wanted) {
        return new MpaOptions(revision, markers, wanted, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options speaking at most {@code highest}. */
    public MpaOptions withRevision(int highest) {
        return new MpaOptions(highest, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options always asking for peer-to-peer with exactly {@code rtr} as the RTR this side can send. */
    public MpaOptions withPeerToPeer(RtrType rtr) {
        return new MpaOptions(revision, markers, crc, true, EnumSet.of(rtr), retryRevision1, startupTimeout, mtu,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options with the RTR types this side supports. */
    public MpaOptions withRtrTypes(Set<RtrType> types) {
        return new MpaOptions(revision, markers, crc, peerToPeer, types, retryRevision1, startupTimeout, mtu,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options retrying with revision 1 when an enhanced request is refused. */
    public MpaOptions withRetryRevision1(boolean retry) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retry, startupTimeout, mtu,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options cutting FPDUs for a path MTU of {@code octets} (0: the local interface's MTU). */
    public MpaOptions withMtu(int octets) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, octets,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options with another startup timeout. */
    public MpaOptions withStartupTimeout(Duration timeout) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, timeout, mtu,
                maxStartups, maxConnections, idleTimeout, memoryLimit);
    }

    /** These options with other limits: connections in startup, and in Full Operation, at once. */
    public MpaOptions withLimits(int startups, int connections) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                startups, connections, idleTimeout, memoryLimit);
    }

    /** These options with an idle timeout for connections in Full Operation (zero: none). */
    public MpaOptions withIdleTimeout(Duration timeout) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxConnections, timeout, memoryLimit);
    }

    /**
     * These options with another limit on the octets of buffers all connections take together,
     * {@link #BUFFER_OCTETS_PER_CONNECTION} each.
     */
    public MpaOptions withMemoryLimit(long octets) {
        return new MpaOptions(revision, markers, crc, peerToPeer, rtrTypes, retryRevision1, startupTimeout, mtu,
                maxStartups, maxConnections, idleTimeout, octets);
    }
}
