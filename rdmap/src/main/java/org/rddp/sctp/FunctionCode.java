package org.rddp.sctp;

/**
 * Function codes of DDP Stream Session Control chunks (RFC 5043 §5.2.3, RFC 6581 §7; registry RFC 6580 §3.5).
 * The field is 16 bits; 0xFFFF is reserved for experiments and everything else is unassigned.
 */
public enum FunctionCode {
    /** 0x0001. */
    INITIATE(0x0001),
    /** 0x0002. */
    ACCEPT(0x0002),
    /** 0x0003. */
    REJECT(0x0003),
    /** 0x0004: carries no private data. */
    TERMINATE(0x0004),
    /** 0x0005: private data starts with the RFC 6581 §9 enhanced data. */
    ENHANCED_INITIATE(0x0005),
    /** 0x0006: private data starts with the RFC 6581 §9 enhanced data. */
    ENHANCED_ACCEPT(0x0006),
    /** 0x0007. */
    ENHANCED_REJECT(0x0007);

    /** The experimental code point (RFC 6580 §3.5). */
    public static final int EXPERIMENTAL = 0xFFFF;

    private final int wire;

    FunctionCode(int wire) {
        this.wire = wire;
    }

    /** The 16-bit value. */
    public int wire() {
        return wire;
    }

    /** Whether this is one of the RFC 6581 codes. */
    public boolean enhanced() {
        return wire >= ENHANCED_INITIATE.wire;
    }

    /** The code for a 16-bit value, or {@code null} if RFC 5043 and RFC 6581 do not define it. */
    public static FunctionCode byWire(int wire) {
        for (FunctionCode code : values()) {
            if (code.wire == wire) {
                return code;
            }
        }
        return null;
    }
}
