package org.rddp.transport.sctp;

import java.time.Duration;

/**
 * The SCTP protocol parameters that decide how soon a dead or unreachable peer is noticed (RFC 4960 §15): the
 * retransmission timeout's bounds, how many retransmissions in a row end a path and the association, and the
 * heartbeat interval. Both backends apply {@link #RDDP} to every association.
 *
 * <p>RFC 4960's suggested values (RTO.Max 60 s, Association.Max.Retrans 10, HB.interval 30 s) notice a peer that
 * died without an ABORT (killed, unplugged, stopped) after 4 to 12 minutes; {@link #RDDP} notices it in seconds.
 *
 * @param rtoInitial             RTO.Initial
 * @param rtoMin                 RTO.Min
 * @param rtoMax                 RTO.Max
 * @param associationMaxRetrans  Association.Max.Retrans: unanswered retransmissions or heartbeats in a row that end
 *                               the association
 * @param pathMaxRetrans         Path.Max.Retrans: the same for one destination address
 * @param maxInitRetransmits     Max.Init.Retransmits
 * @param hbInterval             HB.interval: the quiet time after which an idle path is probed
 */
public record ProtocolParameters(Duration rtoInitial, Duration rtoMin, Duration rtoMax, int associationMaxRetrans,
        int pathMaxRetrans, int maxInitRetransmits, Duration hbInterval) {

    /**
     * This project's values. With data outstanding a silent peer ends the association after 6 retransmission
     * timeouts that double from RTO.Min up to RTO.Max: within 9 s ({@link #deadPeerBound(boolean)}); an idle
     * association probes every HB.interval plus one RTO: within 19 s. A path down for longer than that ends the
     * association too (it is reported lost), where RFC 4960's values would wait minutes.
     */
    public static final ProtocolParameters RDDP = new ProtocolParameters(Duration.ofSeconds(1),
            Duration.ofMillis(200), Duration.ofSeconds(2), 5, 5, 5, Duration.ofSeconds(1));

    /** Checks the values as RFC 4960 §15 orders them. */
    public ProtocolParameters {
        if (rtoMin.isNegative() || rtoMin.isZero() || rtoInitial.compareTo(rtoMin) < 0
                || rtoMax.compareTo(rtoInitial) < 0) {
            throw new IllegalArgumentException("RTO.Min <= RTO.Initial <= RTO.Max, all positive");
        }
        if (associationMaxRetrans < 1 || pathMaxRetrans < 1 || maxInitRetransmits < 1 || hbInterval.isNegative()) {
            throw new IllegalArgumentException("retransmission limits of at least 1 and a heartbeat interval >= 0");
        }
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
}
