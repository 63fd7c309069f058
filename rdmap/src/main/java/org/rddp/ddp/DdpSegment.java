package org.rddp.ddp;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.Wire;

/**
 * Flyweight over one DDP segment, header and payload (RFC 5041 §4). One instance is reused for every segment:
 * {@link #wrap} binds and validates a received segment, {@link #bind} binds a buffer to write one.
 *
 * <pre>
 * Tagged (T=1), 14 octets, RFC 5041 §4.2:
 *  0               1               2               3
 * +-+-+-------+---+---------------+-------------------------------+
 * |T|L| Rsvd  |DV |   RsvdULP     |        STag (32) ...          |
 * +-+-+-------+---+---------------+-------------------------------+
 * |  ... STag     |                TO (64) ...                    |
 * +---------------+-----------------------------------------------+
 * |           ... TO              |  payload ...
 * Untagged (T=0), 18 octets, RFC 5041 §4.3:
 * |T|L| Rsvd  |DV |  RsvdULP[0:7] |    RsvdULP[8:39] (32) ...     |
 * |  ...          |  QN (32) ...  |  ... QN       | MSN (32) ...  |
 * |  ... MSN      |  MO (32) ...                  | ... MO        | payload ...
 * </pre>
 * For RDMAP, RsvdULP[0:7] is the RDMAP control field and RsvdULP[8:39] the Invalidate STag (RFC 5040 §4.1).
 */
public final class DdpSegment {
    /** Octet offset of the DDP control field. */
    public static final int CONTROL_OFFSET = 0;
    /** Octet offset of RsvdULP[0:7], RDMAP's control field. */
    public static final int RSVD_ULP_OFFSET = 1;
    /** Tagged: octet offset of the STag. */
    public static final int STAG_OFFSET = 2;
    /** Tagged: octet offset of the 64-bit TO. */
    public static final int TO_OFFSET = 6;
    /** Octets in a tagged header. */
    public static final int TAGGED_HEADER_LENGTH = 14;
    /** Untagged: octet offset of RsvdULP[8:39], RDMAP's Invalidate STag. */
    public static final int INVALIDATE_STAG_OFFSET = 2;
    /** Untagged: octet offset of the QN. */
    public static final int QN_OFFSET = 6;
    /** Untagged: octet offset of the MSN. */
    public static final int MSN_OFFSET = 10;
    /** Untagged: octet offset of the MO. */
    public static final int MO_OFFSET = 14;
    /** Octets in an untagged header. */
    public static final int UNTAGGED_HEADER_LENGTH = 18;

    /** T: tagged buffer model. */
    public static final int TAGGED_FLAG = 0x80;
    /** L: last segment of a message. */
    public static final int LAST_FLAG = 0x40;
    /** Rsvd: sent as zero, not checked. */
    public static final int RESERVED_MASK = 0x3C;
    /** DV: DDP version. */
    public static final int VERSION_MASK = 0x03;
    /** The DDP version of RFC 5041. */
    public static final int DDP_VERSION = 1;
    /** The DDP version of the RDMA Consortium specification (RFC 5044 Appendix C). */
    public static final int RDMAC_DDP_VERSION = 0;

    private MemorySegment buffer = MemorySegment.NULL;
    private long offset;
    private int length;

    /** An unbound flyweight; bind it with {@link #wrap} or {@link #bind}. */
    public DdpSegment() {
        // fields start unbound
    }

    /** Binds a received segment and validates it for DDP version 1, see the four-argument form. */
    public DecodeStatus wrap(MemorySegment buffer, long offset, int length) {
        return wrap(buffer, offset, length, DDP_VERSION);
    }

    /**
     * Binds the {@code length} octets at {@code offset} as a received DDP segment and checks what DDP alone can
     * check: the header fits and DV is {@code ddpVersion} (RFC 5041 §4.1, §7.2). STag, TO, QN, MSN and MO are
     * the placement engine's to validate. The accessors are valid after {@link DecodeStatus#OK} only.
     *
     * @throws IndexOutOfBoundsException if the range lies outside {@code buffer} (a caller bug, not bad input)
     */
    public DecodeStatus wrap(MemorySegment buffer, long offset, int length, int ddpVersion) {
        bind(buffer, offset, length);
        if (length < 1) {
            return DecodeStatus.DDP_SEGMENT_TRUNCATED;
        }
        int control = control();
        boolean tagged = (control & TAGGED_FLAG) != 0;
        if (length < (tagged ? TAGGED_HEADER_LENGTH : UNTAGGED_HEADER_LENGTH)) {
            return DecodeStatus.DDP_SEGMENT_TRUNCATED;
        }
        if ((control & VERSION_MASK) != ddpVersion) {
            return tagged ? DecodeStatus.DDP_TAGGED_VERSION : DecodeStatus.DDP_UNTAGGED_VERSION;
        }
        return DecodeStatus.OK;
    }

    /** Binds {@code length} octets at {@code offset} without validation, to write a segment. */
    public DdpSegment bind(MemorySegment buffer, long offset, int length) {
        Wire.checkRange(buffer, offset, length);
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /**
     * Writes a tagged header (T=1, DV=1, Rsvd=0). The bound length must hold the header.
     *
     * @param rsvdUlp RsvdULP[0:7], RDMAP's control field
     * @param stag    sink STag
     * @param to      TO of this segment's first payload octet (RFC 5041 §5.2)
     */
    public DdpSegment writeTagged(boolean last, int rsvdUlp, int stag, long to) {
        requireLength(TAGGED_HEADER_LENGTH);
        Wire.putU8(buffer, offset + CONTROL_OFFSET, TAGGED_FLAG | (last ? LAST_FLAG : 0) | DDP_VERSION);
        Wire.putU8(buffer, offset + RSVD_ULP_OFFSET, rsvdUlp);
        Wire.putU32(buffer, offset + STAG_OFFSET, stag);
        Wire.putU64(buffer, offset + TO_OFFSET, to);
        return this;
    }

    /**
     * Writes an untagged header (T=0, DV=1, Rsvd=0). The bound length must hold the header.
     *
     * @param rsvdUlp        RsvdULP[0:7], RDMAP's control field
     * @param invalidateStag RsvdULP[8:39]: RDMAP's Invalidate STag, zero where RDMAP does not use it
     * @param mo             offset of this segment's first payload octet in the message
     */
    public DdpSegment writeUntagged(boolean last, int rsvdUlp, int invalidateStag, int qn, int msn, int mo) {
        requireLength(UNTAGGED_HEADER_LENGTH);
        Wire.putU8(buffer, offset + CONTROL_OFFSET, (last ? LAST_FLAG : 0) | DDP_VERSION);
        Wire.putU8(buffer, offset + RSVD_ULP_OFFSET, rsvdUlp);
        Wire.putU32(buffer, offset + INVALIDATE_STAG_OFFSET, invalidateStag);
        Wire.putU32(buffer, offset + QN_OFFSET, qn);
        Wire.putU32(buffer, offset + MSN_OFFSET, msn);
        Wire.putU32(buffer, offset + MO_OFFSET, mo);
        return this;
    }

    private void requireLength(int headerLength) {
        if (length < headerLength) {
            throw new IllegalStateException("bound " + length + " octets, a header needs " + headerLength);
        }
    }

    /** The raw DDP control octet. */
    public int control() {
        return Wire.u8(buffer, offset + CONTROL_OFFSET);
    }

    /** T: tagged buffer model. */
    public boolean tagged() {
        return (control() & TAGGED_FLAG) != 0;
    }

    /** L: last segment of its message. */
    public boolean last() {
        return (control() & LAST_FLAG) != 0;
    }

    /** DV, the DDP version. */
    public int ddpVersion() {
        return control() & VERSION_MASK;
    }

    /** RsvdULP[0:7], RDMAP's control field. */
    public int rsvdUlp() {
        return Wire.u8(buffer, offset + RSVD_ULP_OFFSET);
    }

    /** Tagged: the STag. */
    public int stag() {
        return Wire.u32(buffer, offset + STAG_OFFSET);
    }

    /** Tagged: the TO, unsigned 64 bits. */
    public long to() {
        return Wire.u64(buffer, offset + TO_OFFSET);
    }

    /** Untagged: RsvdULP[8:39], RDMAP's Invalidate STag. */
    public int invalidateStag() {
        return Wire.u32(buffer, offset + INVALIDATE_STAG_OFFSET);
    }

    /** Untagged: the QN, unsigned. */
    public int qn() {
        return Wire.u32(buffer, offset + QN_OFFSET);
    }

    /** Untagged: the MSN, unsigned. */
    public int msn() {
        return Wire.u32(buffer, offset + MSN_OFFSET);
    }

    /** Untagged: the MO, unsigned. */
    public int mo() {
        return Wire.u32(buffer, offset + MO_OFFSET);
    }

    /** 14 for a tagged segment, 18 for an untagged one. */
    public int headerLength() {
        return tagged() ? TAGGED_HEADER_LENGTH : UNTAGGED_HEADER_LENGTH;
    }

    /** Payload octets after the header (RFC 5041 §3: the LLP reports the segment length). */
    public int payloadLength() {
        return length - headerLength();
    }

    /** Absolute offset of the first payload octet in {@link #buffer()}. */
    public long payloadOffset() {
        return offset + headerLength();
    }

    /** The bound buffer. */
    public MemorySegment buffer() {
        return buffer;
    }

    /** Absolute offset of the segment in {@link #buffer()}. */
    public long offset() {
        return offset;
    }

    /** Segment length, header included. */
    public int length() {
        return length;
    }

    /** A snapshot of the header as a record (allocates; for the control path and diagnostics). */
    public DdpHeader header() {
        return tagged()
                ? new DdpTaggedHeader(control(), rsvdUlp(), stag(), to())
                : new DdpUntaggedHeader(control(), rsvdUlp(), invalidateStag(), qn(), msn(), mo());
    }
}
