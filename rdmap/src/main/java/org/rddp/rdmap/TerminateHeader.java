package org.rddp.rdmap;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import org.rddp.ddp.DdpHeader;
import org.rddp.error.TerminateCause;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;

/**
 * The Terminate header that follows the untagged DDP header of a Terminate message (RFC 5040 §4.8, Figs. 7-8).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------+-------+---------------+-+-+-+-------------------------+
 * | Layer | EType |  Error Code   |M|D|R|       Reserved          |
 * +-------+-------+---------------+-+-+-+-------------------------+
 * |  DDP Segment Length (if M or D)|  Terminated DDP Header       |
 * +-------------------------------+   (14 or 18 octets, if D)     |
 * |                Terminated RDMA Header (28 octets, if R)       |
 * +---------------------------------------------------------------+
 * </pre>
 * M: the DDP Segment Length is valid; D: the Terminated DDP Header is included (and with it the length field,
 * which RFC 5040 says MUST be present when D is set); R: the Terminated RDMA Header (the Read Request header)
 * is included. This codec writes the length field whenever M or D is set. Which length goes there is
 * ambiguous in RFC 5040 (the whole segment or the payload, see the project digest §2.4); the field is carried
 * verbatim.
 *
 * @param layer                4-bit Layer, raw
 * @param etype                4-bit EType, raw
 * @param code                 8-bit Error Code, raw
 * @param segmentLengthValid   M
 * @param ddpSegmentLength     the 16-bit DDP Segment Length; on the wire only when M or D is set, else 0
 * @param terminatedDdpHeader  the DDP header of the offending segment (D), or {@code null}
 * @param terminatedRdmaHeader the offending Read Request's header (R), or {@code null}
 */
public record TerminateHeader(int layer, int etype, int code, boolean segmentLengthValid, int ddpSegmentLength,
        DdpHeader terminatedDdpHeader, ReadRequestHeader terminatedRdmaHeader) {
    /** Octets of the Terminate Control field and Reserved bits. */
    public static final int CONTROL_LENGTH = 4;
    /** Octets of the DDP Segment Length field. */
    public static final int SEGMENT_LENGTH_LENGTH = 2;
    /** Layer bits of the first 32-bit word. */
    public static final int LAYER_MASK = 0xF0000000;
    /** EType bits of the first 32-bit word. */
    public static final int ETYPE_MASK = 0x0F000000;
    /** Error Code bits of the first 32-bit word. */
    public static final int CODE_MASK = 0x00FF0000;
    /** HdrCt M: DDP Segment Length valid. */
    public static final int M_FLAG = 0x00008000;
    /** HdrCt D: Terminated DDP Header included. */
    public static final int D_FLAG = 0x00004000;
    /** HdrCt R: Terminated RDMA Header included. */
    public static final int R_FLAG = 0x00002000;
    /** Reserved bits: sent as zero, ignored on receive. */
    public static final int RESERVED_MASK = 0x00001FFF;

    /** Validates the field widths. */
    public TerminateHeader {
        if (layer < 0 || layer > 0xF || etype < 0 || etype > 0xF || code < 0 || code > 0xFF) {
            throw new IllegalArgumentException("layer/etype/code out of range: " + layer + "/" + etype + "/" + code);
        }
        if (ddpSegmentLength < 0 || ddpSegmentLength > 0xFFFF) {
            throw new IllegalArgumentException("DDP Segment Length is 16 bits, got " + ddpSegmentLength);
        }
        if (!segmentLengthValid && terminatedDdpHeader == null && ddpSegmentLength != 0) {
            throw new IllegalArgumentException("a DDP Segment Length needs M or D");
        }
    }

    /** A Terminate with no copied headers (Local Catastrophic and LLP errors, RFC 5040 §4.8 Fig. 10). */
    public static TerminateHeader of(TerminateCause cause) {
        return new TerminateHeader(cause.layer().wire(), cause.etype(), cause.code(), false, 0, null, null);
    }

    /** A Terminate with M and D set: the offending segment's length and DDP header. */
    public static TerminateHeader of(TerminateCause cause, int ddpSegmentLength, DdpHeader terminatedDdpHeader) {
        return new TerminateHeader(cause.layer().wire(), cause.etype(), cause.code(), true, ddpSegmentLength,
                terminatedDdpHeader, null);
    }

    /** A Terminate with M, D and R set, for an error tied to an RDMA Read Request. */
    public static TerminateHeader of(TerminateCause cause, int ddpSegmentLength, DdpHeader terminatedDdpHeader,
            ReadRequestHeader terminatedRdmaHeader) {
        return new TerminateHeader(cause.layer().wire(), cause.etype(), cause.code(), true, ddpSegmentLength,
                terminatedDdpHeader, terminatedRdmaHeader);
    }

    /**
     * A whole RDMAP Terminate message carrying {@code cause} and no copied headers (untagged DDP header on QN 2,
     * MSN 1, MO 0, then the Terminate header): what connection setup sends when it must end a stream it has just
     * opened (RFC 6581 §9.1, §9.2, §9.3).
     */
    public static byte[] bareMessage(TerminateCause cause) {
        TerminateHeader header = of(cause);
        byte[] message = new byte[org.rddp.ddp.DdpSegment.UNTAGGED_HEADER_LENGTH + header.length()];
        MemorySegment octets = MemorySegment.ofArray(message);
        new org.rddp.ddp.DdpSegment().bind(octets, 0, message.length).writeUntagged(true,
                RdmapControl.encode(RdmapOpcode.TERMINATE), 0, RdmapControl.TERMINATE_QUEUE, 1, 0);
        header.encodeTo(octets, org.rddp.ddp.DdpSegment.UNTAGGED_HEADER_LENGTH);
        return message;
    }

    /** The cause if the RFCs define this Layer/EType/Code. */
    public Optional<TerminateCause> cause() {
        return TerminateCause.of(layer, etype, code);
    }

    /** Whether the DDP Segment Length field is on the wire (M or D). */
    public boolean segmentLengthPresent() {
        return segmentLengthValid || terminatedDdpHeader != null;
    }

    /** Octets on the wire. */
    public int length() {
        return CONTROL_LENGTH + (segmentLengthPresent() ? SEGMENT_LENGTH_LENGTH : 0)
                + (terminatedDdpHeader == null ? 0 : terminatedDdpHeader.length())
                + (terminatedRdmaHeader == null ? 0 : ReadRequestHeader.LENGTH);
    }

    /** The first 32-bit word: Terminate Control, HdrCt and zero Reserved bits. */
    public int controlWord() {
        return layer << 28 | etype << 24 | code << 16 | (segmentLengthValid ? M_FLAG : 0)
                | (terminatedDdpHeader != null ? D_FLAG : 0) | (terminatedRdmaHeader != null ? R_FLAG : 0);
    }

    /** Writes {@link #length()} octets at {@code offset}. */
    public void encodeTo(MemorySegment buffer, long offset) {
        Wire.checkRange(buffer, offset, length());
        Wire.putU32(buffer, offset, controlWord());
        long position = offset + CONTROL_LENGTH;
        if (segmentLengthPresent()) {
            Wire.putU16(buffer, position, ddpSegmentLength);
            position += SEGMENT_LENGTH_LENGTH;
        }
        if (terminatedDdpHeader != null) {
            terminatedDdpHeader.encodeTo(buffer, position);
            position += terminatedDdpHeader.length();
        }
        if (terminatedRdmaHeader != null) {
            terminatedRdmaHeader.encodeTo(buffer, position);
        }
    }

    /** The header as octets. */
    public byte[] toByteArray() {
        byte[] octets = new byte[length()];
        encodeTo(MemorySegment.ofArray(octets), 0);
        return octets;
    }

    /**
     * Reads a Terminate header from the {@code length} payload octets of a Terminate message. Octets after
     * the parts the HdrCt bits announce are ignored (the peer is going away; report what it said).
     *
     * @throws MalformedFrameException {@link DecodeStatus#RDMAP_TERMINATE_MALFORMED} if the announced parts do
     *                                 not fit in {@code length}
     */
    public static TerminateHeader decode(MemorySegment buffer, long offset, int length) throws MalformedFrameException {
        Wire.checkRange(buffer, offset, length);
        if (length < CONTROL_LENGTH) {
            throw malformed(length + " octets, the control field needs " + CONTROL_LENGTH);
        }
        int word = Wire.u32(buffer, offset);
        boolean m = (word & M_FLAG) != 0;
        boolean d = (word & D_FLAG) != 0;
        boolean r = (word & R_FLAG) != 0;
        long position = offset + CONTROL_LENGTH;
        long end = offset + length;
        int segmentLength = 0;
        if (m || d) {
            if (end - position < SEGMENT_LENGTH_LENGTH) {
                throw malformed("M or D set but no DDP Segment Length");
            }
            segmentLength = Wire.u16(buffer, position);
            position += SEGMENT_LENGTH_LENGTH;
        }
        DdpHeader ddpHeader = null;
        if (d) {
            try {
                ddpHeader = DdpHeader.decode(buffer, position, (int) (end - position));
            } catch (MalformedFrameException e) {
                throw malformed("D set but " + e.getMessage());
            }
            position += ddpHeader.length();
        }
        ReadRequestHeader rdmaHeader = null;
        if (r) {
            if (end - position < ReadRequestHeader.LENGTH) {
                throw malformed("R set but only " + (end - position) + " octets for the 28-octet RDMA header");
            }
            rdmaHeader = ReadRequestHeader.decode(buffer, position);
        }
        return new TerminateHeader(word >>> 28, (word & ETYPE_MASK) >>> 24, (word & CODE_MASK) >>> 16, m,
                segmentLength, ddpHeader, rdmaHeader);
    }

    private static MalformedFrameException malformed(String detail) {
        return new MalformedFrameException(DecodeStatus.RDMAP_TERMINATE_MALFORMED, detail);
    }
}
