package org.rddp.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rddp.wire.Octets.hex;
import static org.rddp.wire.Octets.segment;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpHeader;
import org.rddp.ddp.DdpTaggedHeader;
import org.rddp.ddp.DdpUntaggedHeader;
import org.rddp.error.DdpError;
import org.rddp.error.MpaError;
import org.rddp.error.RdmapError;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;

class TerminateHeaderTest {

    /** A DDP base-or-bounds error on an RDMA Write, as siw reports DDP errors (M=D=1). */
    private static final byte[] DDP_ERROR = hex("""
            1 1 01 c000               # RFC 5040 §4.8: Layer 1 DDP, EType 1 tagged, code 0x01 bounds; M=1 D=1 R=0
            00 10                     # RFC 5040 §4.8 DDP Segment Length = 16
            c1 40 00 00 12 34         # RFC 5040 §4.8 Terminated DDP Header (tagged, 14 octets): control, RDMAP
            00 00 00 00 00 00 ff f8   #   Write, STag 0x1234, TO 0xfff8
            """);

    /** A Remote Protection error on an RDMA Read Request: M=D=R=1 (RFC 5040 Fig. 10). */
    private static final byte[] READ_ERROR = hex("""
            0 1 00 e000               # Layer 0 RDMAP, EType 1 Remote Protection, code 0x00 invalid STag; M D R
            00 2e                     # DDP Segment Length = 46 (18 + 28)
            41 41 00000000 00000001   # Terminated DDP Header (untagged, 18 octets): L, Read Request, QN 1,
            00000007 00000000         #   MSN 7, MO 0
            0000abcd 0000000000000000 # Terminated RDMA Header (RFC 5040 §4.4): SinkSTag, SinkTO
            00000100 00005678         #   RDMARDSZ 256, SrcSTag
            0000000000000040          #   SrcTO 0x40
            """);

    @Test
    void decodesADdpErrorKnownAnswer() throws MalformedFrameException {
        TerminateHeader header = TerminateHeader.decode(segment(DDP_ERROR), 0, DDP_ERROR.length);
        assertThat(header.cause()).contains(DdpError.TAGGED_BASE_OR_BOUNDS);
        assertThat(header.segmentLengthValid()).isTrue();
        assertThat(header.ddpSegmentLength()).isEqualTo(16);
        assertThat(header.terminatedDdpHeader()).isEqualTo(DdpTaggedHeader.of(true, 0x40, 0x1234, 0xfff8));
        assertThat(header.terminatedRdmaHeader()).isNull();
        assertThat(header.length()).isEqualTo(DDP_ERROR.length);
    }

    @Test
    void encodesADdpErrorKnownAnswer() {
        assertThat(TerminateHeader.of(DdpError.TAGGED_BASE_OR_BOUNDS, 16, DdpTaggedHeader.of(true, 0x40, 0x1234,
                0xfff8)).toByteArray()).isEqualTo(DDP_ERROR);
    }

    @Test
    void readRequestErrorsCarryTheRdmaHeader() throws MalformedFrameException {
        TerminateHeader expected = TerminateHeader.of(RdmapError.REMOTE_PROTECTION_INVALID_STAG, 46,
                DdpUntaggedHeader.of(true, 0x41, 0, 1, 7, 0), new ReadRequestHeader(0xabcd, 0, 256, 0x5678, 0x40));
        assertThat(expected.toByteArray()).isEqualTo(READ_ERROR);
        assertThat(TerminateHeader.decode(segment(READ_ERROR), 0, READ_ERROR.length)).isEqualTo(expected);
    }

    @Test
    void localCatastrophicAndLlpErrorsAreTheControlWordAlone() throws MalformedFrameException {
        assertThat(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC).toByteArray()).isEqualTo(hex("00000000"));
        byte[] crc = hex("20 02 00 00"); // Layer 2 LLP, EType 0 MPA, code 0x02 CRC error (RFC 5044 §8)
        assertThat(TerminateHeader.of(MpaError.CRC_ERROR).toByteArray()).isEqualTo(crc);
        assertThat(TerminateHeader.decode(segment(crc), 0, 4).cause()).contains(MpaError.CRC_ERROR);
    }

    @Test
    void ignoresReservedBitsAndTrailingOctets() throws MalformedFrameException {
        byte[] noisy = Arrays.copyOf(DDP_ERROR, DDP_ERROR.length + 3);
        noisy[3] = (byte) 0xFF; // reserved bits 24-31
        noisy[2] |= 0x1F;       // reserved bits 19-23
        TerminateHeader header = TerminateHeader.decode(segment(noisy), 0, noisy.length);
        assertThat(header).isEqualTo(TerminateHeader.decode(segment(DDP_ERROR), 0, DDP_ERROR.length));
    }

    @Test
    void keepsUndefinedCausesRaw() throws MalformedFrameException {
        TerminateHeader header = TerminateHeader.decode(segment(hex("3f ab 00 00")), 0, 4);
        assertThat(header.layer()).isEqualTo(3);
        assertThat(header.etype()).isEqualTo(0xf);
        assertThat(header.code()).isEqualTo(0xab);
        assertThat(header.cause()).isEmpty();
    }

    @Test
    void aLengthWithoutAHeaderStillTravelsWhenMIsSet() throws MalformedFrameException {
        byte[] octets = hex("01 ff 80 00 | 01 23");
        TerminateHeader header = TerminateHeader.decode(segment(octets), 0, octets.length);
        assertThat(header.segmentLengthValid()).isTrue();
        assertThat(header.ddpSegmentLength()).isEqualTo(0x123);
        assertThat(header.toByteArray()).isEqualTo(octets);
    }

    @Test
    void rejectsTruncatedTerminates() {
        assertMalformed(hex("11 01"));                                        // no full control word
        assertMalformed(hex("11 01 80 00"));                                  // M set, no length
        assertMalformed(hex("11 01 40 00 00"));                               // D set, half a length
        assertMalformed(Arrays.copyOf(DDP_ERROR, DDP_ERROR.length - 1));      // D set, header cut short
        assertMalformed(Arrays.copyOf(READ_ERROR, READ_ERROR.length - 1));    // R set, RDMA header cut short
        assertMalformed(hex("01 00 20 00") );                                 // R set, nothing after
    }

    @Test
    void validatesFieldWidths() {
        assertThatThrownBy(() -> new TerminateHeader(16, 0, 0, false, 0, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TerminateHeader(0, 0, 256, false, 0, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TerminateHeader(0, 0, 0, true, 0x10000, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TerminateHeader(0, 0, 0, false, 5, null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void roundTrips(@ForAll("headers") TerminateHeader header) throws MalformedFrameException {
        byte[] octets = header.toByteArray();
        assertThat(octets).hasSize(header.length());
        assertThat(TerminateHeader.decode(segment(octets), 0, octets.length)).isEqualTo(header);
    }

    @Property
    void arbitraryOctetsDecodeOrFailWithTheTypedError(@ForAll @Size(max = 64) byte[] octets) {
        try {
            TerminateHeader header = TerminateHeader.decode(segment(octets), 0, octets.length);
            assertThat(header.length()).isLessThanOrEqualTo(octets.length);
        } catch (MalformedFrameException e) {
            assertThat(e.status()).isEqualTo(DecodeStatus.RDMAP_TERMINATE_MALFORMED);
        }
    }

    @Provide
    Arbitrary<TerminateHeader> headers() {
        Arbitrary<DdpHeader> ddp = Arbitraries.oneOf(
                net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 255), Arbitraries.integers(),
                        Arbitraries.longs()).as((rsvd, stag, to) -> DdpTaggedHeader.of(true, rsvd, stag, to)),
                net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 255), Arbitraries.integers(),
                        Arbitraries.integers(), Arbitraries.integers())
                        .as((rsvd, qn, msn, mo) -> DdpUntaggedHeader.of(false, rsvd, 0, qn, msn, mo)));
        Arbitrary<ReadRequestHeader> rdma = net.jqwik.api.Combinators.combine(Arbitraries.integers(),
                Arbitraries.longs(), Arbitraries.integers(), Arbitraries.integers(), Arbitraries.longs())
                .as(ReadRequestHeader::new);
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 15),
                Arbitraries.integers().between(0, 15), Arbitraries.integers().between(0, 255),
                Arbitraries.of(true, false), Arbitraries.integers().between(0, 0xFFFF), ddp.injectNull(0.4),
                rdma.injectNull(0.5))
                .as((layer, etype, code, m, length, d, r) -> new TerminateHeader(layer, etype, code, m,
                        m || d != null ? length : 0, d, r));
    }

    private static void assertMalformed(byte[] octets) {
        assertThatThrownBy(() -> TerminateHeader.decode(segment(octets), 0, octets.length))
                .isInstanceOfSatisfying(MalformedFrameException.class,
                        e -> assertThat(e.status()).isEqualTo(DecodeStatus.RDMAP_TERMINATE_MALFORMED));
    }
}
