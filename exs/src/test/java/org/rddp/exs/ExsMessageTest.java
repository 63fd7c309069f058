package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.rddp.exs.ExsMessage.Acknowledgement;
import org.rddp.exs.ExsMessage.Advertisement;
import org.rddp.wire.PrivateData;

/** Known answers for the EXS wire format drawn in the package documentation, and what decoding refuses. */
class ExsMessageTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void anAdvertisementToRead() throws Exception {
        byte[] octets = new byte[24];
        int written = new Advertisement(0, 7, 65_536, 0x1234_5678, 0x0102_0304_0506_0708L)
                .encode(MemorySegment.ofArray(octets), 0);
        assertThat(written).isEqualTo(24);
        assertThat(HEX.formatHex(octets)).isEqualTo("01010000" + "00000007" + "00010000" + "12345678"
                + "0102030405060708");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 24))
                .isEqualTo(new Advertisement(0, 7, 65_536, 0x1234_5678, 0x0102_0304_0506_0708L));
    }

    @Test
    void anAdvertisementWithImmediateData() throws Exception {
        byte[] octets = HEX.parseHex("01010001" + "ffffffff" + "00000003" + "00000000" + "0000000000000000"
                + "616263");
        Advertisement advert = (Advertisement) ExsMessage.decode(MemorySegment.ofArray(octets), 0, 27);
        assertThat(advert.immediate()).isTrue();
        assertThat(advert.sequence()).isEqualTo(-1);
        assertThat(advert.length()).isEqualTo(3);
        byte[] again = new byte[24];
        advert.encode(MemorySegment.ofArray(again), 0);
        assertThat(HEX.formatHex(again)).isEqualTo(HEX.formatHex(octets, 0, 24));
    }

    @Test
    void anAcknowledgement() throws Exception {
        byte[] octets = new byte[16];
        assertThat(new Acknowledgement(9, 1_000_000, Acknowledgement.OK).encode(MemorySegment.ofArray(octets), 0))
                .isEqualTo(16);
        assertThat(HEX.formatHex(octets)).isEqualTo("01020000" + "00000009" + "000f4240" + "00000000");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 16))
                .isEqualTo(new Acknowledgement(9, 1_000_000, 0));
    }

    @Test
    void reservedBitsAreIgnoredOnReceipt() throws Exception {
        byte[] octets = HEX.parseHex("0102fffe" + "00000001" + "00000002" + "0003ffff");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 16)).isEqualTo(new Acknowledgement(1, 2, 3));
        byte[] advert = HEX.parseHex("0101fffe" + "00000001" + "00000002" + "00000003" + "0000000000000004");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(advert), 0, 24))
                .isEqualTo(new Advertisement(0, 1, 2, 3, 4));
    }

    @Test
    void whatIsNotAMessageOfThisVersionIsRefused() {
        assertRefused("0101", "shorter than any header");
        assertRefused("02010000" + "00000000" + "00000000" + "00000000" + "0000000000000000", "version 2");
        assertRefused("01030000" + "00000000" + "00000000" + "00000000", "unknown type 3");
        assertRefused("01010000" + "00000000" + "00000000", "shorter than its 24-octet header");
        assertRefused("01010000" + "00000000" + "80000000" + "00000000" + "0000000000000000", "more than 2^31-1");
        assertRefused("01010001" + "00000000" + "00000004" + "00000000" + "0000000000000000" + "616263",
                "4 immediate octets came with 3");
        assertRefused("01010000" + "00000000" + "00000004" + "00000000" + "0000000000000000" + "61",
                "1 octets after its header");
        assertRefused("01020000" + "00000000" + "00000000" + "00000000" + "00", "acknowledgement of 17 octets");
        assertRefused("01020000" + "00000000" + "ffffffff" + "00000000", "more than 2^31-1");
    }

    @Test
    void helloKnownAnswerAndRefusals() throws Exception {
        PrivateData hello = new ExsHello(16, 512).encode();
        assertThat(HEX.formatHex(hello.toByteArray())).isEqualTo("45585301" + "00100000" + "00000200");
        assertThat(ExsHello.decode(hello)).isEqualTo(new ExsHello(16, 512));
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.EMPTY)).isInstanceOf(ExsProtocolException.class)
                .hasMessageContaining("0 octets");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("4d504101" + "00100000" + "00000200"))))
                .hasMessageContaining("not an EXS hello");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585302" + "00100000" + "00000200"))))
                .hasMessageContaining("version 2");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585301" + "00000000" + "00000200"))))
                .hasMessageContaining("0 slots");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585301" + "04010000" + "00000200"))))
                .hasMessageContaining("1025 slots");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585301" + "00010000" + "00010001"))))
                .hasMessageContaining("65537 immediate");
    }

    private static void assertRefused(String hex, String why) {
        byte[] octets = HEX.parseHex(hex);
        assertThatThrownBy(() -> ExsMessage.decode(MemorySegment.ofArray(octets), 0, octets.length))
                .isInstanceOf(ExsProtocolException.class).hasMessageContaining(why);
    }
}
