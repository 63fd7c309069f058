package org.rddp.llp;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;

/**
 * One path of the connection under an {@link LlpStream}: a peer address, as the transport sees it now. An SCTP
 * association has one per peer address (RFC 9260 §6.4; a multi-homed peer has several); a TCP connection has one; a
 * Multipath TCP connection one per subflow (RFC 8684), each from a local address to a peer's.
 *
 * @param address the peer's address this path goes to
 * @param state   what the transport thinks of it now
 * @param primary whether it is the primary path: with several active ones, the one the traffic goes to (a potentially
 *                failed primary's traffic goes to an active one); Multipath TCP sends on every active subflow, so one
 *                is primary only while it is the only one
 * @param rto     its retransmission timeout now, or {@code null} when the transport does not say
 * @param local   this end's address it goes from, or {@code null} when the transport does not say (SCTP picks one
 *                per packet)
 */
public record LlpPath(InetSocketAddress address, State state, boolean primary, Duration rto, InetSocketAddress local) {
    /** A path whose local address the transport does not say. */
    public LlpPath(InetSocketAddress address, State state, boolean primary, Duration rto) {
        this(address, state, primary, rto, null);
    }

    /** A path's state (RFC 9260 §8.2, with RFC 7829's potentially-failed state and RFC 6458's unconfirmed one). */
    public enum State {
        /** Answers: data may go this way. */
        ACTIVE,
        /** Missed a few answers (RFC 7829): traffic moves to an active path while it is probed. */
        POTENTIALLY_FAILED,
        /** Failed: Path.Max.Retrans went by unanswered; probed by heartbeats until it answers again. */
        INACTIVE,
        /** Not yet confirmed by a heartbeat (an address the peer listed, RFC 9260 §5.4). */
        UNCONFIRMED,
        /** The transport would not say. */
        UNKNOWN;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    @Override
    public String toString() {
        return (local == null ? "" : local + " -> ") + address + " " + state + (primary ? " (primary)" : "");
    }
}
