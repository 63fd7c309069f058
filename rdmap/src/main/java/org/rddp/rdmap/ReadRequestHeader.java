package org.rddp.rdmap;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.Wire;

/**
 * The 28-octet RDMA Read Request header that follows the untagged DDP header (RFC 5040 §4.4).
 *
 * <pre>
 *  0                   1                   2                   3
 * +---------------------------------------------------------------+
 * |                   Data Sink STag (SinkSTag)                   |  0
 * |              Data Sink Tagged Offset (SinkTO, 64)             |  4
 * |            RDMA Read Message Size (RDMARDSZ, 32)              | 12
 * |                   Data Source STag (SrcSTag)                  | 16
 * |              Data Source Tagged Offset (SrcTO, 64)            | 20
 * +---------------------------------------------------------------+
 * </pre>
 *
 * @param sinkStag        STag of the requester's buffer that the Read Response writes
 * @param sinkTo          TO in the sink buffer, unsigned
 * @param readMessageSize octets to read, unsigned 32 bits (0 is a legal zero-length read)
 * @param srcStag         STag of the responder's buffer to read
 * @param srcTo           TO in the source buffer, unsigned
 */
public record ReadRequestHeader(int sinkStag, long sinkTo, int readMessageSize, int srcStag, long srcTo) {
    /** Octets on the wire. */
    public static final int LENGTH = 28;
    /** Offset of SinkSTag. */
    public static final int SINK_STAG_OFFSET = 0;
    /** Offset of SinkTO. */
    public static final int SINK_TO_OFFSET = 4;
    /** Offset of RDMARDSZ. */
    public static final int READ_SIZE_OFFSET = 12;
    /** Offset of SrcSTag. */
    public static final int SRC_STAG_OFFSET = 16;
    /** Offset of SrcTO. */
    public static final int SRC_TO_OFFSET = 20;

    /** Reads the 28 octets at {@code offset}; the caller has checked that they are there. */
    public static ReadRequestHeader decode(MemorySegment buffer, long offset) {
        Wire.checkRange(buffer, offset, LENGTH);
        return new ReadRequestHeader(Wire.u32(buffer, offset + SINK_STAG_OFFSET),
                Wire.u64(buffer, offset + SINK_TO_OFFSET), Wire.u32(buffer, offset + READ_SIZE_OFFSET),
                Wire.u32(buffer, offset + SRC_STAG_OFFSET), Wire.u64(buffer, offset + SRC_TO_OFFSET));
    }

    /** Writes the 28 octets at {@code offset}. */
    public void encodeTo(MemorySegment buffer, long offset) {
        write(buffer, offset, sinkStag, sinkTo, readMessageSize, srcStag, srcTo);
    }

    /** Writes a header from its fields, without making a record (the engine's hot path). */
    public static void write(MemorySegment buffer, long offset, int sinkStag, long sinkTo, int readMessageSize,
            int srcStag, long srcTo) {
        Wire.checkRange(buffer, offset, LENGTH);
        Wire.putU32(buffer, offset + SINK_STAG_OFFSET, sinkStag);
        Wire.putU64(buffer, offset + SINK_TO_OFFSET, sinkTo);
        Wire.putU32(buffer, offset + READ_SIZE_OFFSET, readMessageSize);
        Wire.putU32(buffer, offset + SRC_STAG_OFFSET, srcStag);
        Wire.putU64(buffer, offset + SRC_TO_OFFSET, srcTo);
    }

    /**
     * The header as a Terminate reports it after {@code octetsSent} of the response went out (RFC 5040 §4.8,
     * Terminated RDMA Header): both TOs advanced, the size reduced to what is left.
     */
    public ReadRequestHeader progressedBy(int octetsSent) {
        if (Integer.compareUnsigned(octetsSent, readMessageSize) > 0) {
            throw new IllegalArgumentException("sent " + Integer.toUnsignedString(octetsSent) + " of a "
                    + Integer.toUnsignedString(readMessageSize) + "-octet read");
        }
        long sent = Integer.toUnsignedLong(octetsSent);
        return new ReadRequestHeader(sinkStag, sinkTo + sent, readMessageSize - octetsSent, srcStag, srcTo + sent);
    }

    @Override
    public String toString() {
        return String.format("ReadRequestHeader[sinkStag=0x%08x, sinkTo=0x%x, readMessageSize=%d, srcStag=0x%08x, "
                + "srcTo=0x%x]", sinkStag, sinkTo, Integer.toUnsignedLong(readMessageSize), srcStag, srcTo);
    }
}
