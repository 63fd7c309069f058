package org.rddp.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rddp.wire.Octets.hex;
import static org.rddp.wire.Octets.segment;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;

class SessionControlChunkTest {
    private static final PrivateData HI = PrivateData.of(new byte[] {'h', 'i'});

    @Test
    void initiateKnownAnswer() throws MalformedFrameException {
        assertKnownAnswer(hex("""
                00 00                     # RFC 5043 §5.2.3 DDP-SSN 0: first chunk of the session (§6.1)
                00 01                     # Function Code 0x0001 DDP Stream Session Initiate
                68 69                     # Private Data "hi"
                """), new SessionControlChunk(0, new SessionControl.Initiate(HI)));
    }

    @Test
    void acceptRejectAndTerminateKnownAnswers() throws MalformedFrameException {
        assertKnownAnswer(hex("0000 0002"), new SessionControlChunk(0, new SessionControl.Accept(PrivateData.EMPTY)));
        assertKnownAnswer(hex("0000 0003 6869"), new SessionControlChunk(0, new SessionControl.Reject(HI)));
        assertKnownAnswer(hex("""
                ff ff                     # DDP-SSN 65535
                00 04                     # Function Code 0x0004 DDP Stream Session Terminate, no private data
                """), new SessionControlChunk(0xFFFF, new SessionControl.Terminate()));
    }

    @Test
    void enhancedInitiateKnownAnswer() throws MalformedFrameException {
        assertKnownAnswer(hex("""
                00 00                     # DDP-SSN 0
                00 05                     # Function Code 0x0005 Enhanced DDP Stream Session Initiate (RFC 6581 §7)
                00 08 00 04               # RFC 6581 §9: A=0 B=0 IRD=8 | C=0 D=0 ORD=4
                68 69                     # ULP Private Data "hi" after the enhanced data
                """), new SessionControlChunk(0, new SessionControl.EnhancedInitiate(
                        EnhancedConnectionData.clientServer(8, 4), HI)));
    }

    @Test
    void enhancedAcceptKnownAnswer() throws MalformedFrameException {
        assertKnownAnswer(hex("0000 0006 3fff 0004"), new SessionControlChunk(0, new SessionControl.EnhancedAccept(
                EnhancedConnectionData.clientServer(EnhancedConnectionData.NO_NEGOTIATION, 4), PrivateData.EMPTY)));
    }

    /**
     * RFC 6581 §7 and §9 put the enhanced data in the Initiate and the Accept only: an Enhanced Reject's private
     * data is the ULP's, whole, whatever its length (the old reading took any first four octets for enhanced data
     * and cut them off a ULP's reject).
     */
    @Test
    void enhancedRejectCarriesTheUlpsPrivateDataOnly() throws MalformedFrameException {
        assertKnownAnswer(hex("""
                00 00                     # DDP-SSN 0
                00 07                     # Function Code 0x0007 Enhanced DDP Stream Session Reject (RFC 6581 §7)
                00 00 00 10 68 69         # ULP Private Data, all six octets: no enhanced data in a reject
                """), new SessionControlChunk(0, new SessionControl.EnhancedReject(
                        PrivateData.of(new byte[] {0, 0, 0, 0x10, 'h', 'i'}))));
        assertKnownAnswer(hex("0000 0007"), new SessionControlChunk(0,
                new SessionControl.EnhancedReject(PrivateData.EMPTY)));
        assertKnownAnswer(hex("0000 0007 6869"), new SessionControlChunk(0, new SessionControl.EnhancedReject(HI)));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} octets")
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 4, 5, 508, 512})
    void anEnhancedRejectsPrivateDataOfAnyLengthComesBackIntact(int length) throws MalformedFrameException {
        byte[] pd = new byte[length];
        for (int i = 0; i < length; i++) {
            pd[i] = (byte) (i * 7 + 1);
        }
        SessionControlChunk chunk = new SessionControlChunk(0, new SessionControl.EnhancedReject(PrivateData.of(pd)));
        byte[] octets = chunk.toByteArray();
        assertThat(octets).hasSize(SessionControlChunk.PRIVATE_DATA_OFFSET + length);
        assertThat(SessionControlChunk.decode(segment(octets), 0, octets.length).message().privateData().toByteArray())
                .isEqualTo(pd);
    }

    @Test
    void functionCodesHaveTheirRegistryValues() {
        assertThat(FunctionCode.values()).extracting(FunctionCode::wire).containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(FunctionCode.ENHANCED_REJECT.enhanced()).isTrue();
        assertThat(FunctionCode.TERMINATE.enhanced()).isFalse();
        assertThat(FunctionCode.byWire(FunctionCode.EXPERIMENTAL)).isNull();
        assertThat(DdpSctp.PPID_DDP_SEGMENT).isEqualTo(16);
        assertThat(DdpSctp.PPID_SESSION_CONTROL).isEqualTo(17);
        assertThat(DdpSctp.ADAPTATION_INDICATION).isEqualTo(0x00000001);
        assertThat(DdpSctp.ADAPTATION_PARAMETER_TYPE).isEqualTo(0xC006);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void rejectsATruncatedChunk(int length) {
        assertMalformed(Arrays.copyOf(hex("0000 0001"), length), DecodeStatus.SCTP_CHUNK_TRUNCATED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0000", "0008", "0100", "8001", "ffff"})
    void rejectsUnknownFunctionCodes(String code) {
        assertMalformed(hex("0000" + code), DecodeStatus.SCTP_UNKNOWN_FUNCTION_CODE);
    }

    @Test
    void rejectsPrivateDataOverFiveHundredTwelveOctets() {
        byte[] chunk = new byte[4 + 513];
        chunk[3] = 0x01;
        assertMalformed(chunk, DecodeStatus.SCTP_PRIVATE_DATA_TOO_LONG);
        chunk[3] = 0x05; // the enhanced data counts towards the 512 (RFC 6581 §7)
        assertMalformed(chunk, DecodeStatus.SCTP_PRIVATE_DATA_TOO_LONG);
    }

    @Test
    void acceptsExactlyFiveHundredTwelveOctets() throws MalformedFrameException {
        byte[] chunk = new byte[4 + 512];
        chunk[3] = 0x05;
        SessionControlChunk decoded = SessionControlChunk.decode(segment(chunk), 0, chunk.length);
        assertThat(decoded.message().privateData().length()).isEqualTo(508);
        assertThat(chunk).hasSize(DdpSctp.MIN_MAX_CHUNK_LENGTH);
    }

    @Test
    void rejectsATerminateWithPrivateData() {
        assertMalformed(hex("0000 0004 00"), DecodeStatus.SCTP_TERMINATE_WITH_PRIVATE_DATA);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0005", "0006"})
    void rejectsEnhancedInitiateOrAcceptWithoutTheEnhancedData(String code) {
        for (int pd = 0; pd < 4; pd++) {
            assertMalformed(Arrays.copyOf(hex("0000" + code), 4 + pd), DecodeStatus.SCTP_ENHANCED_DATA_MISSING);
        }
    }

    @Test
    void sctpDecodeErrorsCarryNoTerminateCause() {
        // RFC 6581 §8: RFC 5043 defines no LLP error codes; the answer is a Session Terminate
        for (DecodeStatus status : DecodeStatus.values()) {
            if (status.name().startsWith("SCTP_")) {
                assertThat(status.terminateCause()).as(status.name()).isEmpty();
            }
        }
    }

    @Test
    void refusesToBuildOversizedMessages() {
        EnhancedConnectionData data = EnhancedConnectionData.clientServer(1, 1);
        PrivateData full = PrivateData.of(new byte[512]);
        assertThatThrownBy(() -> new SessionControl.EnhancedInitiate(data, full))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SessionControl.EnhancedAccept(data, PrivateData.of(new byte[509])))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new SessionControl.EnhancedReject(full).privateDataLength()).isEqualTo(512);
        assertThatThrownBy(() -> new SessionControlChunk(0x10000, new SessionControl.Terminate()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void roundTrips(@ForAll @IntRange(max = 0xFFFF) int ssn, @ForAll @IntRange(min = 1, max = 7) int code,
            @ForAll @IntRange(max = 0x3FFF) int ird, @ForAll @IntRange(max = 0x3FFF) int ord, @ForAll boolean p2p,
            @ForAll @Size(max = 508) byte[] pd) throws MalformedFrameException {
        PrivateData data = PrivateData.of(pd);
        EnhancedConnectionData enhanced = new EnhancedConnectionData(p2p, false, p2p, p2p, ird, ord);
        SessionControl message = switch (FunctionCode.byWire(code)) {
            case INITIATE -> new SessionControl.Initiate(data);
            case ACCEPT -> new SessionControl.Accept(data);
            case REJECT -> new SessionControl.Reject(data);
            case TERMINATE -> new SessionControl.Terminate();
            case ENHANCED_INITIATE -> new SessionControl.EnhancedInitiate(enhanced, data);
            case ENHANCED_ACCEPT -> new SessionControl.EnhancedAccept(enhanced, data);
            case ENHANCED_REJECT -> new SessionControl.EnhancedReject(data);
        };
        SessionControlChunk chunk = new SessionControlChunk(ssn, message);
        byte[] octets = chunk.toByteArray();
        assertThat(octets).hasSize(chunk.length());
        assertThat(SessionControlChunk.decode(segment(octets), 0, octets.length)).isEqualTo(chunk);
    }

    @Property
    void arbitraryOctetsFailOnlyWithTypedErrors(@ForAll @Size(max = 600) byte[] octets) {
        if (octets.length >= 4) {
            octets[2] = 0; // mostly known function codes, so the private-data checks run too
            octets[3] &= 0x07;
        }
        try {
            SessionControlChunk chunk = SessionControlChunk.decode(segment(octets), 0, octets.length);
            assertThat(chunk.toByteArray()).hasSize(octets.length);
        } catch (MalformedFrameException e) {
            assertThat(e.status().name()).startsWith("SCTP_");
        }
    }

    private static void assertKnownAnswer(byte[] octets, SessionControlChunk expected) throws MalformedFrameException {
        assertThat(SessionControlChunk.decode(segment(octets), 0, octets.length)).isEqualTo(expected);
        assertThat(expected.toByteArray()).isEqualTo(octets);
    }

    private static void assertMalformed(byte[] octets, DecodeStatus status) {
        assertThatThrownBy(() -> SessionControlChunk.decode(segment(octets), 0, octets.length))
                .isInstanceOfSatisfying(MalformedFrameException.class, e -> assertThat(e.status()).isEqualTo(status));
    }
}
