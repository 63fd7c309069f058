package org.rddp.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rddp.wire.Octets.hex;
import static org.rddp.wire.Octets.segment;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;

class DdpSegmentTest {

    /** An RDMA Write segment as siw and RFC 5040 lay it out. */
    private static final byte[] TAGGED = hex("""
            c1                        # RFC 5041 §4.1 control: T=1, L=1, Rsvd=0, DV=01
            40                        # RFC 5041 §4.2 RsvdULP = RDMAP control (RFC 5040 §4.1: RV=01, opcode 0 Write)
            12 34 56 78               # RFC 5041 §4.2 STag
            00 00 00 01 00 00 40 00   # RFC 5041 §4.2 TO = 0x100004000
            de ad                     # payload, 2 octets
            """);

    /** The DDP segment inside RFC 5044 §4.4 Figure 5: a Send with L set, 24 zero octets. */
    private static final byte[] UNTAGGED = hex("""
            41                        # RFC 5041 §4.1 control: T=0, L=1, DV=01
            43                        # RFC 5041 §4.3 RsvdULP[0:7] = RDMAP control: RV=01, opcode 3 Send
            00 00 00 00               # RFC 5041 §4.3 RsvdULP[8:39] (RFC 5040: Invalidate STag, zero for Send)
            00 00 00 00               # RFC 5041 §4.3 QN = 0
            00 00 00 01               # RFC 5041 §4.3 MSN = 1
            00 00 00 00               # RFC 5041 §4.3 MO = 0
            00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
            """);

    private final DdpSegment segment = new DdpSegment();

    @Test
    void decodesTaggedKnownAnswer() {
        assertThat(segment.wrap(segment(TAGGED), 0, TAGGED.length)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.tagged()).isTrue();
        assertThat(segment.last()).isTrue();
        assertThat(segment.ddpVersion()).isEqualTo(1);
        assertThat(segment.rsvdUlp()).isEqualTo(0x40);
        assertThat(segment.stag()).isEqualTo(0x12345678);
        assertThat(segment.to()).isEqualTo(0x1_0000_4000L);
        assertThat(segment.headerLength()).isEqualTo(14);
        assertThat(segment.payloadOffset()).isEqualTo(14);
        assertThat(segment.payloadLength()).isEqualTo(2);
        assertThat(segment.header()).isEqualTo(DdpTaggedHeader.of(true, 0x40, 0x12345678, 0x1_0000_4000L));
    }

    @Test
    void encodesTaggedKnownAnswer() {
        byte[] out = new byte[TAGGED.length];
        new DdpSegment().bind(segment(out), 0, out.length).writeTagged(true, 0x40, 0x12345678, 0x1_0000_4000L);
        out[14] = (byte) 0xde;
        out[15] = (byte) 0xad;
        assertThat(out).isEqualTo(TAGGED);
    }

    @Test
    void decodesUntaggedKnownAnswer() {
        assertThat(segment.wrap(segment(UNTAGGED), 0, UNTAGGED.length)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.tagged()).isFalse();
        assertThat(segment.last()).isTrue();
        assertThat(segment.rsvdUlp()).isEqualTo(0x43);
        assertThat(segment.invalidateStag()).isZero();
        assertThat(segment.qn()).isZero();
        assertThat(segment.msn()).isEqualTo(1);
        assertThat(segment.mo()).isZero();
        assertThat(segment.payloadLength()).isEqualTo(24);
    }

    @Test
    void encodesUntaggedKnownAnswer() {
        byte[] out = new byte[UNTAGGED.length];
        new DdpSegment().bind(segment(out), 0, out.length).writeUntagged(true, 0x43, 0, 0, 1, 0);
        assertThat(out).isEqualTo(UNTAGGED);
    }

    @Test
    void decodesAtAnOffsetInsideALargerBuffer() {
        byte[] big = new byte[100];
        System.arraycopy(UNTAGGED, 0, big, 37, UNTAGGED.length);
        assertThat(segment.wrap(segment(big), 37, UNTAGGED.length)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.msn()).isEqualTo(1);
        assertThat(segment.payloadOffset()).isEqualTo(37 + 18);
    }

    @Test
    void unsignedFieldsKeepTheirHighBit() {
        byte[] out = new byte[18];
        new DdpSegment().bind(segment(out), 0, 18).writeUntagged(false, 0, 0xFFFFFFFF, 0x80000000, -1, 0xFFFFFFF0);
        segment.wrap(segment(out), 0, 18);
        assertThat(Integer.toUnsignedLong(segment.qn())).isEqualTo(0x80000000L);
        assertThat(Integer.toUnsignedLong(segment.msn())).isEqualTo(0xFFFFFFFFL);
        assertThat(Integer.toUnsignedLong(segment.mo())).isEqualTo(0xFFFFFFF0L);
        assertThat(segment.last()).isFalse();
    }

    @Test
    void rejectsAnEmptySegment() {
        assertThat(segment.wrap(MemorySegment.ofArray(new byte[0]), 0, 0))
                .isEqualTo(DecodeStatus.DDP_SEGMENT_TRUNCATED);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 6, 13})
    void rejectsATruncatedTaggedHeader(int length) {
        assertThat(segment.wrap(segment(TAGGED), 0, length)).isEqualTo(DecodeStatus.DDP_SEGMENT_TRUNCATED);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 14, 17})
    void rejectsATruncatedUntaggedHeader(int length) {
        assertThat(segment.wrap(segment(UNTAGGED), 0, length)).isEqualTo(DecodeStatus.DDP_SEGMENT_TRUNCATED);
    }

    @Test
    void zeroLengthPayloadsAreLegal() {
        // RFC 5041 §5.2: a zero-length message uses exactly one segment with a full header
        assertThat(segment.wrap(segment(TAGGED), 0, 14)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.payloadLength()).isZero();
        assertThat(segment.wrap(segment(UNTAGGED), 0, 18)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.payloadLength()).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 3})
    void rejectsAWrongDdpVersionWithTheTaggedCode(int version) {
        byte[] bad = TAGGED.clone();
        bad[0] = (byte) (bad[0] & ~DdpSegment.VERSION_MASK | version);
        DecodeStatus status = segment.wrap(segment(bad), 0, bad.length);
        assertThat(status).isEqualTo(DecodeStatus.DDP_TAGGED_VERSION);
        assertThat(status.terminateCause()).contains(org.rddp.error.DdpError.TAGGED_INVALID_VERSION);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 3})
    void rejectsAWrongDdpVersionWithTheUntaggedCode(int version) {
        byte[] bad = UNTAGGED.clone();
        bad[0] = (byte) (bad[0] & ~DdpSegment.VERSION_MASK | version);
        DecodeStatus status = segment.wrap(segment(bad), 0, bad.length);
        assertThat(status).isEqualTo(DecodeStatus.DDP_UNTAGGED_VERSION);
        assertThat(status.terminateCause()).contains(org.rddp.error.DdpError.UNTAGGED_INVALID_VERSION);
    }

    @Test
    void acceptsRdmacVersionZeroWhenTheStreamUsesIt() {
        byte[] rdmac = UNTAGGED.clone();
        rdmac[0] = 0x40; // RFC 5044 Appendix C: DV 0
        assertThat(segment.wrap(segment(rdmac), 0, rdmac.length, DdpSegment.RDMAC_DDP_VERSION))
                .isEqualTo(DecodeStatus.OK);
    }

    @Test
    void ignoresReservedControlBits() {
        // RFC 5041 §4.1: Rsvd "MUST be set to zero on transmit and not checked on receive"
        byte[] reserved = TAGGED.clone();
        reserved[0] |= DdpSegment.RESERVED_MASK;
        assertThat(segment.wrap(segment(reserved), 0, reserved.length)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.header().toByteArray()[0]).isEqualTo(reserved[0]);
    }

    @Test
    void refusesARangeOutsideTheBuffer() {
        assertThatThrownBy(() -> segment.wrap(segment(TAGGED), 10, TAGGED.length))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void refusesToWriteAHeaderIntoTooSmallARange() {
        assertThatThrownBy(() -> new DdpSegment().bind(segment(new byte[17]), 0, 17)
                .writeUntagged(true, 0, 0, 0, 1, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void headerRecordsDecodeCopiesOfAnyVersion() throws MalformedFrameException {
        byte[] copy = UNTAGGED.clone();
        copy[0] = 0x43; // DV 3: the copy of an offending header keeps it
        DdpHeader header = DdpHeader.decode(segment(copy), 0, 18);
        assertThat(header).isInstanceOf(DdpUntaggedHeader.class);
        assertThat(header.ddpVersion()).isEqualTo(3);
        assertThat(header.toByteArray()).isEqualTo(java.util.Arrays.copyOf(copy, 18));
    }

    @Test
    void headerRecordDecodeRejectsTruncation() {
        assertThatThrownBy(() -> DdpHeader.decode(segment(TAGGED), 0, 13))
                .isInstanceOfSatisfying(MalformedFrameException.class,
                        e -> assertThat(e.status()).isEqualTo(DecodeStatus.DDP_SEGMENT_TRUNCATED));
        assertThatThrownBy(() -> DdpHeader.decode(segment(TAGGED), 0, 0))
                .isInstanceOf(MalformedFrameException.class);
    }

    @Test
    void headerRecordsValidateTheirTBit() {
        assertThatThrownBy(() -> new DdpTaggedHeader(0x41, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DdpUntaggedHeader(0xC1, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DdpTaggedHeader.of(true, 0x100, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
