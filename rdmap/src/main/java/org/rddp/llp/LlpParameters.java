package org.rddp.llp;

import org.rddp.ddp.DdpSegment;
import org.rddp.rdmap.RdmapControl;
import org.rddp.wire.PrivateData;
import org.rddp.rdmap.RtrType;

/**
 * What connection setup settled for one stream (RFC 6581 §9 for IRD/ORD and RTR, RFC 5044 Appendix C for the
 * versions).
 *
 * @param ird               inbound RDMA Read Requests this side accepts outstanding
 * @param ord               outbound RDMA Read Requests this side may have outstanding
 * @param rtrToSend         the RTR this side sends as its very first message (the initiator in peer-to-peer mode)
 * @param rtrToReceive      the RTR this side expects as the first message it receives (the responder); it is
 *                          consumed by the provider, never shown to the user
 * @param holdUntilReceived this side sends nothing until it received its first segment (RFC 5044 §7.1.2 rule 4)
 * @param ddpVersion        DV of the stream, 1 (or 0 for RDMAC)
 * @param rdmapVersion      RV of the stream, 1 (or 0 for RDMAC)
 * @param localPrivateData  the private data this side sent
 * @param remotePrivateData the private data the peer sent
 */
public record LlpParameters(int ird, int ord, RtrType rtrToSend, RtrType rtrToReceive, boolean holdUntilReceived,
        int ddpVersion, int rdmapVersion, PrivateData localPrivateData, PrivateData remotePrivateData) {

    /** Validates depths and versions. */
    public LlpParameters {
        if (ird < 0 || ord < 0) {
            throw new IllegalArgumentException("IRD and ORD must not be negative: " + ird + ", " + ord);
        }
        if (rtrToSend == null || rtrToReceive == null || localPrivateData == null || remotePrivateData == null) {
            throw new IllegalArgumentException("RTR types and private data are required");
        }
    }

    /** Client-server, RFC versions, no private data. */
    public static LlpParameters of(int ird, int ord) {
        return new LlpParameters(ird, ord, RtrType.NONE, RtrType.NONE, false, DdpSegment.DDP_VERSION,
                RdmapControl.RDMAP_VERSION, PrivateData.EMPTY, PrivateData.EMPTY);
    }
}
