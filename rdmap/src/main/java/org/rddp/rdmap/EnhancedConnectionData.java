package org.rddp.rdmap;

/**
 * The 32-bit enhanced RDMA connection establishment data that starts the private data of an enhanced MPA
 * Request/Reply (S=1, Rev 2) and of the enhanced SCTP session control chunks (RFC 6581 §9).
 *
 * <pre>
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+---------------------------+-+-+---------------------------+
 * |A|B|          IRD (14)         |C|D|          ORD (14)         |
 * +-+-+---------------------------+-+-+---------------------------+
 * </pre>
 * A: peer-to-peer model; B: zero-length Send RTR; C: zero-length RDMA Write RTR; D: zero-length RDMA Read RTR.
 * With A=0 the B, C and D flags MUST be sent as 0 and ignored on receive (RFC 6581 §9.2), so {@link #decode}
 * clears them.
 *
 * @param peerToPeer A
 * @param sendRtr    B
 * @param writeRtr   C
 * @param readRtr    D
 * @param ird        inbound RDMA Read queue depth, 0..0x3FFF; 0x3FFF = no automatic negotiation (§9.1)
 * @param ord        outbound RDMA Read queue depth, 0..0x3FFF; 0x3FFF = no automatic negotiation (§9.1)
 */
public record EnhancedConnectionData(boolean peerToPeer, boolean sendRtr, boolean writeRtr, boolean readRtr,
        int ird, int ord) {
    /** Octets on the wire. */
    public static final int LENGTH = 4;
    /** IRD or ORD value meaning "the ULP negotiates it" (RFC 6581 §9.1); also the largest value. */
    public static final int NO_NEGOTIATION = 0x3FFF;
    /** A, on the IRD half. */
    public static final int PEER_TO_PEER_FLAG = 0x8000;
    /** B, on the IRD half. */
    public static final int SEND_RTR_FLAG = 0x4000;
    /** C, on the ORD half. */
    public static final int WRITE_RTR_FLAG = 0x8000;
    /** D, on the ORD half. */
    public static final int READ_RTR_FLAG = 0x4000;
    /** The 14-bit IRD or ORD in its half. */
    public static final int DEPTH_MASK = 0x3FFF;

    /** Validates the depths and the A=0 rule. */
    public EnhancedConnectionData {
        if (ird < 0 || ird > DEPTH_MASK || ord < 0 || ord > DEPTH_MASK) {
            throw new IllegalArgumentException("IRD and ORD are 14 bits (0..16383), got IRD " + ird + ", ORD " + ord);
        }
        if (!peerToPeer && (sendRtr || writeRtr || readRtr)) {
            throw new IllegalArgumentException("RTR flags B, C, D need the peer-to-peer flag A (RFC 6581 §9.2)");
        }
    }

    /** Client-server model (A=0) with the given depths. */
    public static EnhancedConnectionData clientServer(int ird, int ord) {
        return new EnhancedConnectionData(false, false, false, false, ird, ord);
    }

    /**
     * A block for the given model: with {@code peerToPeer}, A=1 and a flag for each of {@code rtrTypes}; without,
     * A=0 and no flags.
     */
    public static EnhancedConnectionData of(boolean peerToPeer, java.util.Set<RtrType> rtrTypes,
            int ird, int ord) {
        return new EnhancedConnectionData(peerToPeer, peerToPeer && rtrTypes.contains(RtrType.SEND),
                peerToPeer && rtrTypes.contains(RtrType.WRITE), peerToPeer && rtrTypes.contains(RtrType.READ), ird,
                ord);
    }

    /** The RTR types whose flags are set. */
    public java.util.Set<RtrType> rtrTypes() {
        java.util.Set<RtrType> types = java.util.EnumSet.noneOf(RtrType.class);
        int word = encode();
        for (RtrType type : RtrType.values()) {
            if (type != RtrType.NONE && (word & type.flag()) != 0) {
                types.add(type);
            }
        }
        return types;
    }

    /** Whether at least one RTR type is offered or accepted. */
    public boolean anyRtr() {
        return sendRtr || writeRtr || readRtr;
    }

    /** The 32 bits, to be written big-endian. */
    public int encode() {
        int irdHalf = (peerToPeer ? PEER_TO_PEER_FLAG : 0) | (sendRtr ? SEND_RTR_FLAG : 0) | ird;
        int ordHalf = (writeRtr ? WRITE_RTR_FLAG : 0) | (readRtr ? READ_RTR_FLAG : 0) | ord;
        return irdHalf << 16 | ordHalf;
    }

    /** Reads the 32 bits; with A=0, B, C and D are ignored. */
    public static EnhancedConnectionData decode(int word) {
        int irdHalf = word >>> 16;
        int ordHalf = word & 0xFFFF;
        boolean peerToPeer = (irdHalf & PEER_TO_PEER_FLAG) != 0;
        return new EnhancedConnectionData(peerToPeer, peerToPeer && (irdHalf & SEND_RTR_FLAG) != 0,
                peerToPeer && (ordHalf & WRITE_RTR_FLAG) != 0, peerToPeer && (ordHalf & READ_RTR_FLAG) != 0,
                irdHalf & DEPTH_MASK, ordHalf & DEPTH_MASK);
    }
}
