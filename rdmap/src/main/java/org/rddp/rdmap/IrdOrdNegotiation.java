package org.rddp.rdmap;

/**
 * The IRD/ORD negotiation of RFC 6581 §9.1, shared by MPA and SCTP. The initiator offers its IRD and ORD; the
 * responder answers with the IRD and ORD it actually uses; the initiator adjusts. After a successful exchange
 * initiator ORD &lt;= responder IRD and responder ORD &lt;= initiator IRD. 0x3FFF means "no automatic
 * negotiation; the ULP handles it": it is echoed, and the side that receives it keeps its local value.
 */
public final class IrdOrdNegotiation {
    /** {@link EnhancedConnectionData#NO_NEGOTIATION}. */
    public static final int NO_NEGOTIATION = EnhancedConnectionData.NO_NEGOTIATION;

    private IrdOrdNegotiation() {
    }

    /**
     * The responder's answer.
     *
     * @param ird      the IRD the responder uses locally
     * @param ord      the ORD the responder uses locally
     * @param replyIrd the IRD it sends (0x3FFF when the initiator's ORD was 0x3FFF)
     * @param replyOrd the ORD it sends (0x3FFF when the initiator's IRD was 0x3FFF)
     */
    public record Answer(int ird, int ord, int replyIrd, int replyOrd) {
    }

    /**
     * What the responder uses and sends, given the initiator's offer and its own limits. The responder's IRD is
     * what the initiator's ORD needs, up to {@code maxIrd} (raised to 1 when {@code readRtr} needs a slot for a
     * zero-length Read RTR); its ORD is what it wants, up to the initiator's IRD.
     *
     * @param initiatorIrd the IRD in the request
     * @param initiatorOrd the ORD in the request
     * @param maxIrd       the most inbound reads the responder can queue
     * @param wantedOrd    the outbound reads the responder's ULP wants
     * @param readRtr      a zero-length Read RTR will arrive (RFC 6581 §9.1: the IRD may be raised to 1 for it)
     */
    public static Answer respond(int initiatorIrd, int initiatorOrd, int maxIrd, int wantedOrd, boolean readRtr) {
        int ird;
        int replyIrd;
        if (initiatorOrd == NO_NEGOTIATION) {
            ird = maxIrd; // keep the local IRD, tell the initiator so
            replyIrd = NO_NEGOTIATION;
        } else {
            ird = Math.min(maxIrd, initiatorOrd);
            if (readRtr && ird == 0) {
                ird = 1;
            }
            replyIrd = ird;
        }
        int ord;
        int replyOrd;
        if (initiatorIrd == NO_NEGOTIATION) {
            ord = wantedOrd;
            replyOrd = NO_NEGOTIATION;
        } else {
            ord = Math.min(wantedOrd, initiatorIrd); // MUST be at most the initiator's IRD
            replyOrd = ord;
        }
        return new Answer(ird, ord, replyIrd, replyOrd);
    }

    /**
     * The initiator's IRD and ORD after the responder's answer, or -1 for the IRD when the responder's ORD needs
     * more IRD than the initiator has (it then MUST send Terminate 0x2/0x0/0x06, RFC 6581 §9.1).
     *
     * @param localIrd     the IRD the initiator offered and can hold
     * @param localOrd     the ORD the initiator offered
     * @param responderIrd the IRD in the reply
     * @param responderOrd the ORD in the reply
     * @return {@code {ird, ord}}
     */
    public static int[] settle(int localIrd, int localOrd, int responderIrd, int responderOrd) {
        int ird;
        if (responderOrd == NO_NEGOTIATION) {
            ird = localIrd;
        } else {
            ird = responderOrd > localIrd ? -1 : localIrd;
        }
        int ord = responderIrd == NO_NEGOTIATION ? localOrd : Math.min(localOrd, responderIrd);
        return new int[] {ird, ord};
    }
}
