package org.rddp.verbs;

import java.time.Duration;
import java.util.Set;
import org.rddp.rdmap.RtrType;
import org.rddp.wire.PrivateData;

/**
 * What an initiator asks for.
 *
 * @param privateData ULP private data for the peer (508 octets at most when enhanced, else 512)
 * @param enhanced    use RFC 6581 enhanced setup (IRD/ORD and peer-to-peer negotiation)
 * @param ird         inbound RDMA Reads this side can queue (0x3FFF: the ULP negotiates)
 * @param ord         outbound RDMA Reads this side wants (0x3FFF: the ULP negotiates)
 * @param peerToPeer  ask for the peer-to-peer model
 * @param rtrTypes    the RTR indications this side can send, for peer-to-peer
 * @param timeout     how long to wait for the peer's answer
 */
public record ConnectOptions(PrivateData privateData, boolean enhanced, int ird, int ord, boolean peerToPeer,
        Set<RtrType> rtrTypes, Duration timeout) {

    /** Validates. */
    public ConnectOptions {
        if (privateData == null || rtrTypes == null || timeout == null) {
            throw new IllegalArgumentException("private data, RTR types and timeout are required");
        }
        if (peerToPeer && !enhanced) {
            throw new IllegalArgumentException("peer-to-peer needs enhanced setup (RFC 6581)");
        }
        if (rtrTypes.contains(RtrType.NONE)) {
            throw new IllegalArgumentException("NONE is not an RTR type");
        }
    }

    /** Enhanced client-server setup with the given depths and no private data. */
    public static ConnectOptions of(int ird, int ord) {
        return new ConnectOptions(PrivateData.EMPTY, true, ird, ord, false, Set.of(), Duration.ofSeconds(10));
    }
}
