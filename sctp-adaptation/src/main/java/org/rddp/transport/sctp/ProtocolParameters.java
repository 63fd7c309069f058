package org.rddp.transport.sctp;

import java.time.Duration;

/**
 * The SCTP protocol parameters that decide how soon a failed path is left and a dead peer noticed (RFC 9260 §16,
 * RFC 7829): the retransmission timeout's bounds, how many timeouts in a row make a path potentially failed, fail
 * it, and end the association, and the heartbeat interval. Each connection manager applies its own to every socket
 * it makes ({@code SctpConnectionManager}); {@link #defaults()} unless told otherwise.
 *
 * <p>The design is RFC 9260's: a path fails fast, the association slowly. With several paths, traffic moves to
 * another one as soon as its path turns potentially failed ({@link #pfThreshold} timeouts in a row: one RTO after the
 * failure with the default 0), and the association ends only after {@link #associationMaxRetrans} timeouts in a row
 * across all its paths. The trade-off: a longer Association.Max.Retrans (or RTO.Max) rides out a longer stall of the
 * peer (a garbage-collection pause, a VM stopped) but reports a dead peer later; a lower one the other way round.
 *
 * @param rtoInitial            RTO.Initial
 * @param rtoMin                RTO.Min
 * @param rtoMax                RTO.Max
 * @param associationMaxRetrans Association.Max.Retrans: timeouts in a row (retransmissions or heartbeats unanswered)
 *                              that end the association
 * @param pathMaxRetrans        Path.Max.Retrans: timeouts in a row that fail one destination address; below
 *                              Association.Max.Retrans, so that a multi-homed association moves before it ends
 * @param pfThreshold           the potentially-failed threshold (RFC 7829 PFMR): timeouts in a row after which a
 *                              path is potentially failed and traffic moves to another active path; at or above
 *                              Path.Max.Retrans the state is off
 * @param maxInitRetransmits    Max.Init.Retransmits
 * @param hbInterval            HB.interval: the quiet time after which an idle path is probed
 * @param sackDelay             how long this side may hold a SACK back for a second packet to acknowledge with it
 *                              (RFC 9260 §6.2: at most 500 ms, 200 by default): a peer whose RTO.Min is shorter
 *                              retransmits what a held SACK has yet to acknowledge
 */
public record ProtocolParameters(Duration rtoInitial, Duration rtoMin, Duration rtoMax, int associationMaxRetrans,
        int pathMaxRetrans, int pfThreshold, int maxInitRetransmits, Duration hbInterval, Duration sackDelay) {

    /** RFC 9260 §6.2's delayed-SACK bound, and its default. */
    private static final Duration LONGEST_SACK_DELAY = Duration.ofMillis(500);
    private static final Duration SACK_DELAY = Duration.ofMillis(200);

    private static final ProtocolParameters DEFAULTS = new ProtocolParameters(Duration.ofSeconds(1),
            Duration.ofMillis(200), Duration.ofSeconds(5), 20, 4, 0, 8, Duration.ofSeconds(1));

    /** The named profiles, for {@link #named}. */
    public static final java.util.List<String> PROFILES = java.util.List.of("default", "rfc9260", "fast-failover");

    /** Parameters with RFC 9260's default SACK delay, 200 ms. */
    public ProtocolParameters(Duration rtoInitial, Duration rtoMin, Duration rtoMax, int associationMaxRetrans,
            int pathMaxRetrans, int pfThreshold, int maxInitRetransmits, Duration hbInterval) {
        this(rtoInitial, rtoMin, rtoMax, associationMaxRetrans, pathMaxRetrans, pfThreshold, maxInitRetransmits,
                hbInterval, SACK_DELAY);
    }

    /**
     * This project's defaults: RTO.Initial 1 s, RTO.Min 200 ms, RTO.Max 5 s, Association.Max.Retrans 20,
     * Path.Max.Retrans 4, the potentially-failed threshold 0, Max.Init.Retransmits 8, HB.interval 1 s. A failed path is
     * left one RTO after the failure (up to 1 s on a path that was answering). A peer that stops answering ends the
     * association after 20 timeouts in a row, counting both the retransmissions and the heartbeats that probe a
     * potentially-failed path every RTO: 47 s measured on usrsctp with data outstanding, so a stall of 30 s is ridden
     * out ({@link #stallRiddenOut}), as TCP/MPA rides it out, and a dead peer is reported within a minute.
     */
    public static ProtocolParameters defaults() {
        return DEFAULTS;
    }

    /**
     * RFC 9260 §16's values, the potentially-failed state off (RFC 7829 leaves it to the implementation): RTO.Initial
     * 1 s, RTO.Min 1 s, RTO.Max 60 s, Association.Max.Retrans 10, Path.Max.Retrans 5, Max.Init.Retransmits 8,
     * HB.interval 30 s, a SACK held up to 200 ms. What a stack out of the box does: a failed path is left after some
     * 63 s, and a lost retransmission waits a second or more.
     */
    public static ProtocolParameters rfc9260() {
        return new ProtocolParameters(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(60), 10, 5, 5,
                8, Duration.ofSeconds(30));
    }

    /**
     * For paths of a few milliseconds' round trip at most (a LAN, a data centre, two hosts' links): RTO.Min 20 ms and
     * RTO.Max 1 s, so that a lost retransmission costs 20 ms rather than 200 and a path that comes back is tried
     * again within a second; the potentially-failed threshold 0, so that traffic moves to another path one RTO after
     * its path failed; HB.interval 100 ms, so that an idle association notices as soon and a path that came back is
     * confirmed soon; SACKs held at most 10 ms, well inside the peer's RTO.Min. Association.Max.Retrans 70, so that a
     * peer's stall of 30 s is still ridden out ({@link #stallRiddenOut}) as with the defaults. The cost: a peer that
     * holds its SACKs longer than 20 ms (RFC 9260's default is 200) makes this side retransmit a lone packet's
     * chunks, and a multi-homed association move for it; and every idle path is probed ten times a second.
     */
    public static ProtocolParameters fastFailover() {
        return new ProtocolParameters(Duration.ofMillis(200), Duration.ofMillis(20), Duration.ofSeconds(1), 70, 4, 0,
                8, Duration.ofMillis(100), Duration.ofMillis(10));
    }

    /**
     * The profile called {@code name}: {@code default} ({@link #defaults()}), {@code rfc9260} ({@link #rfc9260()}) or
     * {@code fast-failover} ({@link #fastFailover()}).
     *
     * @throws IllegalArgumentException for another name
     */
    public static ProtocolParameters named(String name) {
        return switch (name) {
            case "default" -> defaults();
            case "rfc9260" -> rfc9260();
            case "fast-failover" -> fastFailover();
            default -> throw new IllegalArgumentException("an SCTP profile is one of " + PROFILES + ", not '" + name
                    + "'");
        };
    }

    /** Checks the values as RFC 9260 §16 and RFC 7829 order them. */
    public ProtocolParameters {
        if (rtoMin.isNegative() || rtoMin.isZero() || rtoInitial.compareTo(rtoMin) < 0
                || rtoMax.compareTo(rtoInitial) < 0) {
            throw new IllegalArgumentException("RTO.Min <= RTO.Initial <= RTO.Max, all positive; not " + rtoMin
                    + ", " + rtoInitial + ", " + rtoMax);
        }
        if (associationMaxRetrans < 1 || pathMaxRetrans < 1 || maxInitRetransmits < 1 || pfThreshold < 0
                || hbInterval.isNegative()) {
            throw new IllegalArgumentException("retransmission limits of at least 1, a potentially-failed threshold "
                    + "and a heartbeat interval of 0 or more");
        }
        if (sackDelay == null || sackDelay.compareTo(Duration.ofMillis(1)) < 0
                || sackDelay.compareTo(LONGEST_SACK_DELAY) > 0) {
            throw new IllegalArgumentException("a SACK delay of 1 to 500 ms (RFC 9260 §6.2), not " + sackDelay);
        }
        if (associationMaxRetrans > 0xFFFF || pathMaxRetrans > 0xFFFF || pfThreshold > 0xFFFF
                || maxInitRetransmits > 0xFFFF || rtoMax.toMillis() > Integer.MAX_VALUE
                || hbInterval.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("counts of at most 65,535 and times of at most 2^31 ms");
        }
    }

    /** These parameters with other RTO bounds. */
    public ProtocolParameters withRto(Duration initial, Duration min, Duration max) {
        return new ProtocolParameters(initial, min, max, associationMaxRetrans, pathMaxRetrans, pfThreshold,
                maxInitRetransmits, hbInterval, sackDelay);
    }

    /** These parameters with other retransmission limits: the association's, a path's, and the PF threshold. */
    public ProtocolParameters withRetransmissions(int association, int path, int potentiallyFailed) {
        return new ProtocolParameters(rtoInitial, rtoMin, rtoMax, association, path, potentiallyFailed,
                maxInitRetransmits, hbInterval, sackDelay);
    }

    /** These parameters with another heartbeat interval. */
    public ProtocolParameters withHeartbeatInterval(Duration interval) {
        return new ProtocolParameters(rtoInitial, rtoMin, rtoMax, associationMaxRetrans, pathMaxRetrans, pfThreshold,
                maxInitRetransmits, interval, sackDelay);
    }

    /** These parameters with another SACK delay. */
    public ProtocolParameters withSackDelay(Duration delay) {
        return new ProtocolParameters(rtoInitial, rtoMin, rtoMax, associationMaxRetrans, pathMaxRetrans, pfThreshold,
                maxInitRetransmits, hbInterval, delay);
    }

    /**
     * The values on one line, for a result's conditions: "RTO 1000/200/5000 ms (initial/min/max), retransmissions
     * 20/4/0 (association/path/PF), HB.interval 1000 ms, SACK delay 200 ms".
     */
    public String describe() {
        return "RTO " + rtoInitial.toMillis() + "/" + rtoMin.toMillis() + "/" + rtoMax.toMillis()
                + " ms (initial/min/max), retransmissions " + associationMaxRetrans + "/" + pathMaxRetrans + "/"
                + pfThreshold + " (association/path/PF), HB.interval " + hbInterval.toMillis() + " ms, SACK delay "
                + sackDelay.toMillis() + " ms";
    }

    /** Whether the potentially-failed state is on (RFC 7829): the threshold is below Path.Max.Retrans. */
    public boolean potentiallyFailedOn() {
        return pfThreshold < pathMaxRetrans;
    }

    /**
     * The longest a silent peer goes unnoticed, worst case (the first timeout at RTO.Max rather than RTO.Min plus
     * usrsctp's and Linux's heartbeat jitter of up to half an RTO): with data outstanding, or on an idle association.
     */
    public Duration deadPeerBound(boolean dataOutstanding) {
        Duration total = Duration.ZERO;
        Duration rto = rtoMin;
        for (int timeout = 0; timeout <= associationMaxRetrans; timeout++) {
            total = total.plus(rto);
            if (!dataOutstanding) {
                total = total.plus(hbInterval).plus(rto.dividedBy(2));
            }
            rto = rto.multipliedBy(2).compareTo(rtoMax) > 0 ? rtoMax : rto.multipliedBy(2);
        }
        return total.plus(rtoMax);
    }

    /**
     * The longest stall of the peer an association with data outstanding surely rides out: the time of the last
     * probe before the association ends, counting the timeouts as they come fastest, each RTO doubling from RTO.Min
     * up to RTO.Max (RFC 9260 §6.3.3) and, once the path is potentially failed, a heartbeat timing out beside each
     * retransmission (RFC 7829 §5.4). A stall shorter than this ends before that probe, which the peer answers.
     */
    public Duration stallRiddenOut() {
        Duration time = Duration.ZERO;
        Duration lastProbe = Duration.ZERO;
        Duration rto = rtoMin;
        int errors = 0;
        while (errors <= associationMaxRetrans) {
            lastProbe = time;
            time = time.plus(rto);
            errors += potentiallyFailedOn() && errors > pfThreshold ? 2 : 1;
            rto = rto.multipliedBy(2).compareTo(rtoMax) > 0 ? rtoMax : rto.multipliedBy(2);
        }
        return lastProbe;
    }
}
