package org.rddp.rdmap;

/**
 * RDMAP message opcodes and the DDP usage each one requires (RFC 5040 §4.1 Fig. 4, §4.2 Fig. 5; registry
 * RFC 6580 §3.4). Opcodes 0x8-0xE are unassigned and 0xF is reserved for experiments.
 */
public enum RdmapOpcode {
    RDMA_WRITE(0x0, true, -1, 0),
    RDMA_READ_REQUEST(0x1, false, RdmapControl.READ_REQUEST_QUEUE, ReadRequestHeader.LENGTH),
    RDMA_READ_RESPONSE(0x2, true, -1, 0),
    SEND(0x3, false, RdmapControl.SEND_QUEUE, 0),
    SEND_WITH_INVALIDATE(0x4, false, RdmapControl.SEND_QUEUE, 0),
    SEND_WITH_SE(0x5, false, RdmapControl.SEND_QUEUE, 0),
    SEND_WITH_SE_AND_INVALIDATE(0x6, false, RdmapControl.SEND_QUEUE, 0),
    TERMINATE(0x7, false, RdmapControl.TERMINATE_QUEUE, TerminateHeader.CONTROL_LENGTH);

    private static final RdmapOpcode[] BY_WIRE = new RdmapOpcode[16];

    static {
        for (RdmapOpcode opcode : values()) {
            BY_WIRE[opcode.wire] = opcode;
        }
    }

    private final int wire;
    private final boolean tagged;
    private final int queueNumber;
    private final int minimumHeaderLength;

    RdmapOpcode(int wire, boolean tagged, int queueNumber, int minimumHeaderLength) {
        this.wire = wire;
        this.tagged = tagged;
        this.queueNumber = queueNumber;
        this.minimumHeaderLength = minimumHeaderLength;
    }

    /** The 4-bit opcode. */
    public int wire() {
        return wire;
    }

    /** Whether the message uses the tagged buffer model (T=1). */
    public boolean tagged() {
        return tagged;
    }

    /** The untagged QN the message travels on (RFC 5040 §3.1), or -1 for tagged messages. */
    public int queueNumber() {
        return queueNumber;
    }

    /** Octets of RDMAP header after the DDP header: 28 for a Read Request, at least 4 for a Terminate, else 0. */
    public int minimumHeaderLength() {
        return minimumHeaderLength;
    }

    /** Whether RsvdULP[8:39] carries an Invalidate STag (Send with Invalidate, with or without SE). */
    public boolean invalidates() {
        return this == SEND_WITH_INVALIDATE || this == SEND_WITH_SE_AND_INVALIDATE;
    }

    /** Whether the message asks for a solicited event at the sink (RFC 5040 §5.3). */
    public boolean solicitedEvent() {
        return this == SEND_WITH_SE || this == SEND_WITH_SE_AND_INVALIDATE;
    }

    /** Whether this is one of the four Send opcodes. */
    public boolean isSend() {
        return queueNumber == RdmapControl.SEND_QUEUE;
    }

    /** The opcode for a 4-bit wire value, or {@code null} for an unassigned or experimental one (0x8-0xF). */
    public static RdmapOpcode byWire(int wire) {
        return wire >= 0 && wire < BY_WIRE.length ? BY_WIRE[wire] : null;
    }
}
