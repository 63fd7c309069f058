package org.rddp.ddp;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;

/**
 * A DDP header as a value (RFC 5041 §4): for the control path, diagnostics and the Terminated DDP Header of a
 * Terminate (RFC 5040 §4.8). The hot path uses {@link DdpSegment}. The control octet is kept raw, so a header
 * copied from an offending segment (a bad DV, reserved bits set) is reproduced octet for octet.
 */
public sealed interface DdpHeader permits DdpTaggedHeader, DdpUntaggedHeader {

    /** The raw DDP control octet: T, L, Rsvd, DV. */
    int control();

    /** RsvdULP[0:7], RDMAP's control field. */
    int rsvdUlp();

    /** Header length on the wire: 14 tagged, 18 untagged. */
    int length();

    /** Writes the header at {@code offset}. */
    void encodeTo(MemorySegment buffer, long offset);

    /** L: last segment of its message. */
    default boolean last() {
        return (control() & DdpSegment.LAST_FLAG) != 0;
    }

    /** DV, the DDP version. */
    default int ddpVersion() {
        return control() & DdpSegment.VERSION_MASK;
    }

    /** The header as octets. */
    default byte[] toByteArray() {
        byte[] octets = new byte[length()];
        encodeTo(MemorySegment.ofArray(octets), 0);
        return octets;
    }

    /**
     * Reads a header of any DDP version at {@code offset}; the T bit picks the layout. Used for copies of
     * headers (a Terminate's), where the version may be the very thing that was wrong.
     *
     * @throws MalformedFrameException {@link DecodeStatus#DDP_SEGMENT_TRUNCATED} if fewer octets are available
     *                                 than the T bit announces
     */
    static DdpHeader decode(MemorySegment buffer, long offset, int available) throws MalformedFrameException {
        Wire.checkRange(buffer, offset, available);
        if (available < 1) {
            throw new MalformedFrameException(DecodeStatus.DDP_SEGMENT_TRUNCATED, "no DDP control octet");
        }
        int control = Wire.u8(buffer, offset);
        boolean tagged = (control & DdpSegment.TAGGED_FLAG) != 0;
        int needed = tagged ? DdpSegment.TAGGED_HEADER_LENGTH : DdpSegment.UNTAGGED_HEADER_LENGTH;
        if (available < needed) {
            throw new MalformedFrameException(DecodeStatus.DDP_SEGMENT_TRUNCATED,
                    (tagged ? "tagged" : "untagged") + " header needs " + needed + " octets, got " + available);
        }
        int rsvdUlp = Wire.u8(buffer, offset + DdpSegment.RSVD_ULP_OFFSET);
        if (tagged) {
            return new DdpTaggedHeader(control, rsvdUlp, Wire.u32(buffer, offset + DdpSegment.STAG_OFFSET),
                    Wire.u64(buffer, offset + DdpSegment.TO_OFFSET));
        }
        return new DdpUntaggedHeader(control, rsvdUlp,
                Wire.u32(buffer, offset + DdpSegment.INVALIDATE_STAG_OFFSET),
                Wire.u32(buffer, offset + DdpSegment.QN_OFFSET),
                Wire.u32(buffer, offset + DdpSegment.MSN_OFFSET),
                Wire.u32(buffer, offset + DdpSegment.MO_OFFSET));
    }
}
