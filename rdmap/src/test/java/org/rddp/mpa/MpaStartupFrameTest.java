package org.rddp.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rddp.wire.Octets.hex;

import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.error.MpaError;
import org.rddp.mpa.MpaStartupFrame.Kind;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;

class MpaStartupFrameTest {

    /** A plain RFC 5044 Request: markers off, CRC on, Rev 1, 3 octets of private data. */
    private static final byte[] REQUEST_REV1 = hex("""
            4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65   # RFC 5044 §7.1.1 Key "MPA ID Req Frame"
            40                        # M=0 C=1 R=0 Res=0
            01                        # Rev 1
            00 03                     # PD_Length 3
            61 62 63                  # Private Data "abc"
            """);

    /** An RFC 6581 enhanced Reply accepting P2P with a zero-length Write RTR, IRD 4, ORD 2, no ULP data. */
    private static final byte[] REPLY_ENHANCED = hex("""
            4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65   # RFC 5044 §7.1.1 Key "MPA ID Rep Frame"
            50                        # M=0 C=1 R=0 S=1 (RFC 6581 §6) Res=0
            02                        # Rev 2
            00 04                     # PD_Length 4: the enhanced data alone
            80 04 80 02               # RFC 6581 §9: A=1 B=0 IRD=4 | C=1 D=0 ORD=2
            """);

    /** A rejecting Reply with markers requested, Rev 1, private data "no". */
    private static final byte[] REPLY_REJECT = hex("""
            4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65
            a0                        # M=1 C=0 R=1
            01 00 02 6e 6f            # Rev 1, PD_Length 2, "no"
            """);

    @Test
    void decodesARevisionOneRequest() throws MalformedFrameException {
        MpaStartupFrame frame = MpaStartupFrame.decode(ByteBuffer.wrap(REQUEST_REV1), Kind.REQUEST);
        assertThat(frame).isEqualTo(new MpaStartupFrame(Kind.REQUEST, false, true, false, 1, null,
                PrivateData.of(new byte[] {'a', 'b', 'c'})));
        assertThat(frame.toByteArray()).isEqualTo(REQUEST_REV1);
    }

    @Test
    void decodesAnEnhancedReply() throws MalformedFrameException {
        MpaStartupFrame frame = MpaStartupFrame.decode(ByteBuffer.wrap(REPLY_ENHANCED), Kind.REPLY);
        assertThat(frame.enhanced()).isTrue();
        assertThat(frame.enhancedData()).isEqualTo(new EnhancedConnectionData(true, false, true, false, 4, 2));
        assertThat(frame.privateData()).isEqualTo(PrivateData.EMPTY);
        assertThat(frame.pdLength()).isEqualTo(4);
        assertThat(frame.toByteArray()).isEqualTo(REPLY_ENHANCED);
    }

    @Test
    void decodesARejectingReply() throws MalformedFrameException {
        MpaStartupFrame frame = MpaStartupFrame.decode(ByteBuffer.wrap(REPLY_REJECT), Kind.REPLY);
        assertThat(frame.reject()).isTrue();
        assertThat(frame.markers()).isTrue();
        assertThat(frame.crc()).isFalse();
        assertThat(frame.toByteArray()).isEqualTo(REPLY_REJECT);
    }

    @Test
    void ignoresReservedBitsSuchAsSiwsGsoFlag() throws MalformedFrameException {
        byte[] siw = REPLY_ENHANCED.clone();
        siw[16] |= 0x08; // MPA_RR_FLAG_GSO_EXP: Res "MUST NOT be checked on reception" (RFC 5044 §7.1.1)
        assertThat(MpaStartupFrame.decode(ByteBuffer.wrap(siw), Kind.REPLY))
                .isEqualTo(MpaStartupFrame.decode(ByteBuffer.wrap(REPLY_ENHANCED), Kind.REPLY));
    }

    @Test
    void ignoresTheRejectBitInARequest() throws MalformedFrameException {
        byte[] request = REQUEST_REV1.clone();
        request[16] |= MpaStartupFrame.REJECT_FLAG; // "set to zero, and not checked on reception in the Request"
        assertThat(MpaStartupFrame.decode(ByteBuffer.wrap(request), Kind.REQUEST).reject()).isFalse();
    }

    @Test
    void theSBitOfARevisionOneFrameIsAReservedBit() throws MalformedFrameException {
        byte[] request = REQUEST_REV1.clone();
        request[16] |= MpaStartupFrame.ENHANCED_FLAG;
        MpaStartupFrame frame = MpaStartupFrame.decode(ByteBuffer.wrap(request), Kind.REQUEST);
        assertThat(frame.enhanced()).isFalse();
        assertThat(frame.privateData().length()).isEqualTo(3);
    }

    @Test
    void rejectsTheWrongKey() {
        assertMalformed(REQUEST_REV1, Kind.REPLY, DecodeStatus.MPA_BAD_KEY); // Initiator/Initiator (rule 8)
        assertMalformed(REPLY_REJECT, Kind.REQUEST, DecodeStatus.MPA_BAD_KEY);
        byte[] http = REQUEST_REV1.clone();
        System.arraycopy("GET / HTTP/1.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, http, 0, 16);
        assertMalformed(http, Kind.REQUEST, DecodeStatus.MPA_BAD_KEY);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 255})
    void rejectsRevisionsWeCannotInteroperateWith(int revision) {
        byte[] request = REQUEST_REV1.clone();
        request[17] = (byte) revision;
        assertMalformed(request, Kind.REQUEST, DecodeStatus.MPA_BAD_REVISION);
    }

    @Test
    void rejectsPrivateDataOverFiveHundredTwelveOctets() {
        byte[] frame = Arrays.copyOf(REQUEST_REV1, 20 + 513);
        frame[18] = 0x02;
        frame[19] = 0x01; // PD_Length 513
        assertMalformed(frame, Kind.REQUEST, DecodeStatus.MPA_PRIVATE_DATA_TOO_LONG);
        frame[18] = (byte) 0xFF;
        frame[19] = (byte) 0xFF; // PD_Length 65535, checked before reading any of it
        assertMalformed(Arrays.copyOf(frame, 20), Kind.REQUEST, DecodeStatus.MPA_PRIVATE_DATA_TOO_LONG);
    }

    @Test
    void rejectsAPdLengthThatDisagreesWithTheData() {
        assertMalformed(Arrays.copyOf(REQUEST_REV1, REQUEST_REV1.length - 1), Kind.REQUEST,
                DecodeStatus.MPA_FRAME_TRUNCATED);
        assertMalformed(Arrays.copyOf(REQUEST_REV1, REQUEST_REV1.length + 1), Kind.REQUEST,
                DecodeStatus.MPA_PRIVATE_DATA_LENGTH_MISMATCH);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 16, 19})
    void rejectsATruncatedHeader(int length) {
        assertMalformed(Arrays.copyOf(REQUEST_REV1, length), Kind.REQUEST, DecodeStatus.MPA_FRAME_TRUNCATED);
    }

    @Test
    void rejectsAnEnhancedFrameWithoutRoomForTheEnhancedData() {
        byte[] frame = Arrays.copyOf(REPLY_ENHANCED, 22);
        frame[19] = 2;
        assertMalformed(frame, Kind.REPLY, DecodeStatus.MPA_ENHANCED_DATA_MISSING);
    }

    @Test
    void everyStartupErrorIsMpaCodeFour() {
        for (DecodeStatus status : new DecodeStatus[] {DecodeStatus.MPA_BAD_KEY, DecodeStatus.MPA_BAD_REVISION,
            DecodeStatus.MPA_FRAME_TRUNCATED, DecodeStatus.MPA_PRIVATE_DATA_TOO_LONG,
            DecodeStatus.MPA_PRIVATE_DATA_LENGTH_MISMATCH, DecodeStatus.MPA_ENHANCED_DATA_MISSING}) {
            assertThat(status.terminateCause()).contains(MpaError.INVALID_REQUEST_OR_REPLY);
        }
    }

    @Test
    void frameLengthTellsAReaderHowMuchToRead() throws MalformedFrameException {
        ByteBuffer header = ByteBuffer.wrap(REPLY_ENHANCED, 0, 20);
        assertThat(MpaStartupFrame.frameLength(header, Kind.REPLY)).isEqualTo(24);
        assertThat(header.position()).isZero();
    }

    @Test
    void refusesToBuildIllegalFrames() {
        EnhancedConnectionData data = EnhancedConnectionData.clientServer(1, 1);
        assertThatThrownBy(() -> new MpaStartupFrame(Kind.REQUEST, false, true, false, 1, data, PrivateData.EMPTY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("revision 2");
        assertThatThrownBy(() -> new MpaStartupFrame(Kind.REQUEST, false, true, true, 1, null, PrivateData.EMPTY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MpaStartupFrame(Kind.REQUEST, false, true, false, 2, data,
                PrivateData.of(new byte[509]))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrivateData.of(new byte[513])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MpaStartupFrame(Kind.REQUEST, false, true, false, 0, null, PrivateData.EMPTY))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void roundTrips(@ForAll boolean reply, @ForAll boolean m, @ForAll boolean c, @ForAll boolean r,
            @ForAll boolean enhanced, @ForAll @IntRange(max = 0x3FFF) int ird, @ForAll @IntRange(max = 0x3FFF) int ord,
            @ForAll @Size(max = 508) byte[] pd) throws MalformedFrameException {
        Kind kind = reply ? Kind.REPLY : Kind.REQUEST;
        MpaStartupFrame frame = new MpaStartupFrame(kind, m, c, reply && r, enhanced ? 2 : 1,
                enhanced ? EnhancedConnectionData.clientServer(ird, ord) : null, PrivateData.of(pd));
        byte[] octets = frame.toByteArray();
        assertThat(octets).hasSize(frame.length());
        assertThat(MpaStartupFrame.decode(ByteBuffer.wrap(octets), kind)).isEqualTo(frame);
    }

    @Property
    void arbitraryOctetsAfterAValidKeyFailOnlyWithTypedErrors(@ForAll @Size(max = 40) byte[] tail) {
        byte[] octets = new byte[16 + tail.length];
        System.arraycopy(Kind.REQUEST.key(), 0, octets, 0, 16);
        System.arraycopy(tail, 0, octets, 16, tail.length);
        try {
            MpaStartupFrame.decode(ByteBuffer.wrap(octets), Kind.REQUEST);
        } catch (MalformedFrameException e) {
            assertThat(e.status().terminateCause()).contains(MpaError.INVALID_REQUEST_OR_REPLY);
        }
    }

    private static void assertMalformed(byte[] octets, Kind kind, DecodeStatus expected) {
        assertThatThrownBy(() -> MpaStartupFrame.decode(ByteBuffer.wrap(octets), kind))
                .isInstanceOfSatisfying(MalformedFrameException.class, e -> assertThat(e.status()).isEqualTo(expected));
    }
}
