package org.rddp.sctp;

import java.lang.foreign.MemorySegment;
import org.rddp.ddp.DdpSegment;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.Wire;

/**
 * Flyweight over the payload of a DDP Segment chunk, PPID 16 (RFC 5043 §5.2.2): a 16-bit DDP-SSN followed by
 * one DDP segment. Reused for every chunk.
 *
 * <pre>
 *  0                   1                   2                   3
 * +-------------------------------+-------------------------------+
 * |          DDP-SSN (16)         |   DDP Segment (RFC 5041) ...  |
 * +-------------------------------+-------------------------------+
 * </pre>
 */
public final class DdpSegmentChunk {
    /** Offset of the DDP-SSN. */
    public static final int DDP_SSN_OFFSET = 0;
    /** Offset of the DDP segment. */
    public static final int SEGMENT_OFFSET = DdpSctp.DDP_SSN_LENGTH;

    private final DdpSegment segment = new DdpSegment();
    private MemorySegment buffer = MemorySegment.NULL;
    private long offset;

    /** An unbound flyweight; bind it with {@link #wrap}. */
    public DdpSegmentChunk() {
        // fields start unbound
    }

    /**
     * Binds a received chunk payload and validates the chunk size and the DDP header.
     *
     * @param maxChunkLength the largest chunk payload the adaptation advertised (at least 516, RFC 5043 §9)
     * @param ddpVersion     the stream's DDP version
     */
    public DecodeStatus wrap(MemorySegment buffer, long offset, int length, int maxChunkLength, int ddpVersion) {
        Wire.checkRange(buffer, offset, length);
        this.buffer = buffer;
        this.offset = offset;
        if (length > maxChunkLength) {
            return DecodeStatus.SCTP_CHUNK_OVERSIZED;
        }
        if (length < SEGMENT_OFFSET) {
            return DecodeStatus.SCTP_CHUNK_TRUNCATED;
        }
        return segment.wrap(buffer, offset + SEGMENT_OFFSET, length - SEGMENT_OFFSET, ddpVersion);
    }

    /** Writes the DDP-SSN of a chunk whose DDP segment the caller writes at {@code offset + 2}. */
    public static void writeDdpSsn(MemorySegment buffer, long offset, int ddpSsn) {
        Wire.putU16(buffer, offset + DDP_SSN_OFFSET, ddpSsn);
    }

    /** The DDP-SSN, 0..65535. */
    public int ddpSsn() {
        return Wire.u16(buffer, offset + DDP_SSN_OFFSET);
    }

    /** The DDP segment, valid after {@link DecodeStatus#OK}. */
    public DdpSegment segment() {
        return segment;
    }
}
