package org.rddp.rdmap;

import org.rddp.ddp.DdpSegment;
import org.rddp.wire.DecodeStatus;

/**
 * The RDMAP control field, RsvdULP[0:7] of the DDP header (RFC 5040 §4.1), and the per-segment checks RDMAP
 * makes before any placement (RFC 5040 §7.2).
 *
 * <pre>
 *  0 1 2 3 4 5 6 7
 * +---+---+-------+
 * |RV |Rsv|Opcode |
 * +---+---+-------+
 * </pre>
 */
public final class RdmapControl {
    /** RV: RDMAP version. */
    public static final int VERSION_MASK = 0xC0;
    /** Shift of RV within the octet. */
    public static final int VERSION_SHIFT = 6;
    /** Rsv: sent as zero, ignored on receive. */
    public static final int RESERVED_MASK = 0x30;
    /** Opcode. */
    public static final int OPCODE_MASK = 0x0F;
    /** RV of RFC 5040. */
    public static final int RDMAP_VERSION = 1;
    /** RV of the RDMA Consortium specification (RFC 5044 Appendix C). */
    public static final int RDMAC_VERSION = 0;

    /** QN of the Send family (RFC 5040 §3.1). */
    public static final int SEND_QUEUE = 0;
    /** QN of RDMA Read Requests. */
    public static final int READ_REQUEST_QUEUE = 1;
    /** QN of Terminate messages. */
    public static final int TERMINATE_QUEUE = 2;

    private RdmapControl() {
    }

    /** The control octet for {@code opcode} with RV = {@link #RDMAP_VERSION} and Rsv = 0. */
    public static int encode(RdmapOpcode opcode) {
        return RDMAP_VERSION << VERSION_SHIFT | opcode.wire();
    }

    /** RV of a control octet. */
    public static int version(int control) {
        return (control & VERSION_MASK) >>> VERSION_SHIFT;
    }

    /** The opcode of a control octet, or {@code null} if unassigned. */
    public static RdmapOpcode opcode(int control) {
        return RdmapOpcode.byWire(control & OPCODE_MASK);
    }

    /**
     * Checks the RDMAP view of a segment that {@link DdpSegment#wrap} accepted: RV, a known opcode, the buffer
     * model and QN the opcode requires, and the shape of the single-segment Read Request and Terminate
     * messages (RFC 5040 §4.1, §4.4, §4.8, §7.2). MSN, MO ranges, STags and buffers are the engine's.
     */
    public static DecodeStatus validate(DdpSegment segment, int rdmapVersion) {
        int control = segment.rsvdUlp();
        if (version(control) != rdmapVersion) {
            return DecodeStatus.RDMAP_VERSION;
        }
        RdmapOpcode opcode = opcode(control);
        if (opcode == null) {
            return DecodeStatus.RDMAP_UNKNOWN_OPCODE;
        }
        if (opcode.tagged() != segment.tagged()) {
            return DecodeStatus.RDMAP_OPCODE_BUFFER_MISMATCH;
        }
        if (opcode.tagged()) {
            return DecodeStatus.OK;
        }
        if (segment.qn() != opcode.queueNumber()) {
            return DecodeStatus.RDMAP_WRONG_QUEUE;
        }
        return switch (opcode) {
            case RDMA_READ_REQUEST -> validateReadRequest(segment);
            case TERMINATE -> segment.last() && segment.mo() == 0
                    && segment.payloadLength() >= TerminateHeader.CONTROL_LENGTH
                    ? DecodeStatus.OK : DecodeStatus.RDMAP_TERMINATE_MALFORMED;
            default -> DecodeStatus.OK;
        };
    }

    private static DecodeStatus validateReadRequest(DdpSegment segment) {
        if (!segment.last() || segment.mo() != 0) {
            return DecodeStatus.RDMAP_READ_REQUEST_MO;
        }
        int length = segment.payloadLength();
        if (length < ReadRequestHeader.LENGTH) {
            return DecodeStatus.RDMAP_READ_REQUEST_TRUNCATED;
        }
        return length > ReadRequestHeader.LENGTH ? DecodeStatus.RDMAP_READ_REQUEST_TOO_LONG : DecodeStatus.OK;
    }
}
