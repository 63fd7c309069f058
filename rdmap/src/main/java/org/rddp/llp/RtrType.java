package org.rddp.llp;

/** The ready-to-receive indications of RFC 6581 §9.2: the first message the initiator sends in peer-to-peer mode. */
public enum RtrType {
    /** Client-server model, or a transport that needs none (SCTP, RFC 6581 §7). */
    NONE,
    /** B: a zero-length Send; it consumes a receive buffer and MSN 1 on QN 0 at the responder. */
    SEND,
    /** C: a zero-length RDMA Write; STag and TO are not checked (RFC 5041 §5.2). */
    WRITE,
    /** D: a zero-length RDMA Read Request; the responder answers with a zero-length Read Response. */
    READ;

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
