package org.rddp.ddp;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.Wire;

/**
 * The 14-octet tagged buffer header (RFC 5041 §4.2) as a value.
 *
 * @param control raw control octet; T must be 1
 * @param rsvdUlp RsvdULP, RDMAP's control field
 * @param stag    STag of the sink buffer
 * @param to      TO of the segment's first payload octet, unsigned
 */
public record DdpTaggedHeader(int control, int rsvdUlp, int stag, long to) implements DdpHeader {

    /** Validates the octet fields and the T bit. */
    public DdpTaggedHeader {
        if (control < 0 || control > 0xFF || (control & DdpSegment.TAGGED_FLAG) == 0) {
            throw new IllegalArgumentException("tagged control octet needs T=1, got 0x" + Integer.toHexString(control));
        }
        if (rsvdUlp < 0 || rsvdUlp > 0xFF) {
            throw new IllegalArgumentException("RsvdULP is one octet, got " + rsvdUlp);
        }
    }

    /** A DDP version 1 header with the reserved bits zero. */
    public static DdpTaggedHeader of(boolean last, int rsvdUlp, int stag, long to) {
        return new DdpTaggedHeader(DdpSegment.TAGGED_FLAG | (last ? DdpSegment.LAST_FLAG : 0) | DdpSegment.DDP_VERSION,
                rsvdUlp, stag, to);
    }

    @Override
    public int length() {
        return DdpSegment.TAGGED_HEADER_LENGTH;
    }

    @Override
    public void encodeTo(MemorySegment buffer, long offset) {
        DdpSegment segment = new DdpSegment().bind(buffer, offset, DdpSegment.TAGGED_HEADER_LENGTH);
        segment.writeTagged(last(), rsvdUlp, stag, to);
        Wire.putU8(buffer, offset + DdpSegment.CONTROL_OFFSET, control);
    }

    @Override
    public String toString() {
        return String.format("DdpTaggedHeader[control=0x%02x, rsvdUlp=0x%02x, stag=0x%08x, to=0x%016x]",
                control, rsvdUlp, stag, to);
    }
}
