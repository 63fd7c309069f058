package org.rddp.ddp;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.Wire;

/**
 * The 18-octet untagged buffer header (RFC 5041 §4.3) as a value.
 *
 * @param control        raw control octet; T must be 0
 * @param rsvdUlp        RsvdULP[0:7], RDMAP's control field
 * @param invalidateStag RsvdULP[8:39], RDMAP's Invalidate STag or zero
 * @param qn             queue number, unsigned
 * @param msn            message sequence number, unsigned
 * @param mo             message offset, unsigned
 */
public record DdpUntaggedHeader(int control, int rsvdUlp, int invalidateStag, int qn, int msn, int mo)
        implements DdpHeader {

    /** Validates the octet fields and the T bit. */
    public DdpUntaggedHeader {
        if (control < 0 || control > 0xFF || (control & DdpSegment.TAGGED_FLAG) != 0) {
            throw new IllegalArgumentException("untagged control octet needs T=0, got 0x"
                    + Integer.toHexString(control));
        }
        if (rsvdUlp < 0 || rsvdUlp > 0xFF) {
            throw new IllegalArgumentException("RsvdULP[0:7] is one octet, got " + rsvdUlp);
        }
    }

    /** A DDP version 1 header with the reserved bits zero. */
    public static DdpUntaggedHeader of(boolean last, int rsvdUlp, int invalidateStag, int qn, int msn, int mo) {
        return new DdpUntaggedHeader((last ? DdpSegment.LAST_FLAG : 0) | DdpSegment.DDP_VERSION, rsvdUlp,
                invalidateStag, qn, msn, mo);
    }

    @Override
    public int length() {
        return DdpSegment.UNTAGGED_HEADER_LENGTH;
    }

    @Override
    public void encodeTo(MemorySegment buffer, long offset) {
        new DdpSegment().bind(buffer, offset, DdpSegment.UNTAGGED_HEADER_LENGTH)
                .writeUntagged(last(), rsvdUlp, invalidateStag, qn, msn, mo);
        Wire.putU8(buffer, offset + DdpSegment.CONTROL_OFFSET, control);
    }

    @Override
    public String toString() {
        return String.format("DdpUntaggedHeader[control=0x%02x, rsvdUlp=0x%02x, invalidateStag=0x%08x, qn=%d, "
                + "msn=%d, mo=%d]", control, rsvdUlp, invalidateStag, Integer.toUnsignedLong(qn),
                Integer.toUnsignedLong(msn), Integer.toUnsignedLong(mo));
    }
}
