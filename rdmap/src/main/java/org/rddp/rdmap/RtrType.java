package org.rddp.rdmap;

/**
 * The ready-to-receive indications of RFC 6581 §9.2: the first message the initiator sends in peer-to-peer mode, each
 * with its flag in the enhanced connection data ({@link EnhancedConnectionData}).
 */
public enum RtrType {
    /** Client-server model, or a transport that needs none (SCTP, RFC 6581 §7). */
    NONE(0),
    /** B: a zero-length Send; it consumes a receive buffer and MSN 1 on QN 0 at the responder. */
    SEND(EnhancedConnectionData.SEND_RTR_FLAG << 16),
    /** C: a zero-length RDMA Write; STag and TO are not checked (RFC 5041 §5.2). */
    WRITE(EnhancedConnectionData.WRITE_RTR_FLAG),
    /** D: a zero-length RDMA Read Request; the responder answers with a zero-length Read Response. */
    READ(EnhancedConnectionData.READ_RTR_FLAG);

    private final int flag;

    RtrType(int flag) {
        this.flag = flag;
    }

    /**
     * Its flag in the 32 bits of the enhanced connection data, as {@link EnhancedConnectionData#encode()} writes them
     * (RFC 6581 §9.2: B in the IRD half, C and D in the ORD half); 0 for {@link #NONE}.
     */
    public int flag() {
        return flag;
    }

    /**
     * The type to use among {@code candidates}: a zero-length RDMA Write first (it consumes nothing at the
     * responder; siw and hardware RNICs accept it), then a Read, then a Send; NONE if there are none.
     */
    public static RtrType preferred(java.util.Set<RtrType> candidates) {
        for (RtrType type : new RtrType[] {WRITE, READ, SEND}) {
            if (candidates.contains(type)) {
                return type;
            }
        }
        return NONE;
    }
}
