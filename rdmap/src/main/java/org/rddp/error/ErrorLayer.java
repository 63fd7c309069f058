package org.rddp.error;

/** The layer that detected an error, the 4-bit Layer field of the Terminate Control field (RFC 5040 §4.8, Fig. 9). */
public enum ErrorLayer {
    /** 0x0: RDMAP, RFC 5040. */
    RDMAP(0x0),
    /** 0x1: DDP, RFC 5041. */
    DDP(0x1),
    /** 0x2: the LLP; for TCP this is MPA (RFC 5044 §8). RFC 5043 defines no LLP codes for SCTP. */
    LLP(0x2);

    private final int wire;

    ErrorLayer(int wire) {
        this.wire = wire;
    }

    /** The 4-bit value on the wire. */
    public int wire() {
        return wire;
    }

    /** The layer for a 4-bit wire value, or {@code null} for the values RFC 5040 leaves undefined (0x3-0xF). */
    public static ErrorLayer byWire(int wire) {
        for (ErrorLayer layer : values()) {
            if (layer.wire == wire) {
                return layer;
            }
        }
        return null;
    }
}
