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
        byte[] octets = new byte[32];
        int written = new Advertisement(0, 7, 65_536, 0x1234_5678, 0x0102_0304_0506_0708L, 0)
                .encode(MemorySegment.ofArray(octets), 0);
        assertThat(written).isEqualTo(32);
        assertThat(HEX.formatHex(octets)).isEqualTo("02010000" + "00000007" + "00010000" + "12345678"
                + "0102030405060708" + "0000000000000000");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 32))
                .isEqualTo(new Advertisement(0, 7, 65_536, 0x1234_5678, 0x0102_0304_0506_0708L, 0));
    }

    @Test
    void aPersistentAdvertisementAskingForNotificationsAndAPlacedOne() throws Exception {
        byte[] octets = new byte[32];
        new Advertisement(ExsMessage.PERSISTENT | ExsMessage.NOTIFY, 1, 4096, 0xAB00_0042, 0, 0)
                .encode(MemorySegment.ofArray(octets), 0);
        assertThat(HEX.formatHex(octets)).isEqualTo("02010006" + "00000001" + "00001000" + "ab000042"
                + "0000000000000000" + "0000000000000000");
        Advertisement persistent = (Advertisement) ExsMessage.decode(MemorySegment.ofArray(octets), 0, 32);
        assertThat(persistent.persistent()).isTrue();
        assertThat(persistent.notifying()).isTrue();
        new Advertisement(0, 2, 16, 0xAB00_0043, 0, 0x1_0000_0000L).encode(MemorySegment.ofArray(octets), 0);
        assertThat(HEX.formatHex(octets, 24, 32)).isEqualTo("0000000100000000");
        assertThat(((Advertisement) ExsMessage.decode(MemorySegment.ofArray(octets), 0, 32)).placement())
                .isEqualTo(0x1_0000_0000L);
    }

    @Test
    void anAdvertisementWithImmediateData() throws Exception {
        byte[] octets = HEX.parseHex("02010001" + "ffffffff" + "00000003" + "00000000" + "0000000000000000"
                + "0000000000000000" + "616263");
        Advertisement advert = (Advertisement) ExsMessage.decode(MemorySegment.ofArray(octets), 0, 35);
        assertThat(advert.immediate()).isTrue();
        assertThat(advert.sequence()).isEqualTo(-1);
        assertThat(advert.length()).isEqualTo(3);
        byte[] again = new byte[32];
        advert.encode(MemorySegment.ofArray(again), 0);
        assertThat(HEX.formatHex(again)).isEqualTo(HEX.formatHex(octets, 0, 32));
    }

    @Test
    void anAcknowledgementANotificationAndARearm() throws Exception {
        byte[] octets = new byte[16];
        assertThat(new Acknowledgement(0, 9, 1_000_000, Acknowledgement.OK)
                .encode(MemorySegment.ofArray(octets), 0)).isEqualTo(16);
        assertThat(HEX.formatHex(octets)).isEqualTo("02020000" + "00000009" + "000f4240" + "00000000");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 16))
                .isEqualTo(new Acknowledgement(0, 9, 1_000_000, 0));
        new Acknowledgement(ExsMessage.READ, 3, 512, Acknowledgement.OK).encode(MemorySegment.ofArray(octets), 0);
        assertThat(HEX.formatHex(octets)).isEqualTo("02020001" + "00000003" + "00000200" + "00000000");
        assertThat(((Acknowledgement) ExsMessage.decode(MemorySegment.ofArray(octets), 0, 16)).read()).isTrue();
        new Acknowledgement(0, 4, 0, Acknowledgement.NO_ROOM).encode(MemorySegment.ofArray(octets), 0);
        assertThat(HEX.formatHex(octets)).isEqualTo("02020000" + "00000004" + "00000000" + "00010000");
        assertThat(new ExsMessage.Rearm(3).encode(MemorySegment.ofArray(octets), 0)).isEqualTo(16);
        assertThat(HEX.formatHex(octets)).isEqualTo("02030000" + "00000003" + "00000000" + "00000000");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 16)).isEqualTo(new ExsMessage.Rearm(3));
    }

    @Test
    void anAcknowledgementOfSeveralImmediateMessages() throws Exception {
        byte[] octets = new byte[16];
        new Acknowledgement(0, 12, 64, Acknowledgement.OK, 3).encode(MemorySegment.ofArray(octets), 0);
        assertThat(HEX.formatHex(octets)).isEqualTo("02020000" + "0000000c" + "00000040" + "00000003");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 16))
                .isEqualTo(new Acknowledgement(0, 12, 64, 0, 3));
        assertRefused("02020001" + "0000000c" + "00000040" + "00000003", "3 more advertisements as a read");
        assertRefused("02020000" + "0000000c" + "00000040" + "00010003", "3 more advertisements with status 1");
        assertThatThrownBy(() -> new Acknowledgement(0, 1, 0, Acknowledgement.NO_ROOM, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reservedBitsAreIgnoredOnReceipt() throws Exception {
        byte[] octets = HEX.parseHex("0202fffe" + "00000001" + "00000002" + "00030000");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(octets), 0, 16))
                .isEqualTo(new Acknowledgement(0, 1, 2, 3));
        byte[] advert = HEX.parseHex("0201fff8" + "00000001" + "00000002" + "00000003" + "0000000000000004"
                + "0000000000000005");
        assertThat(ExsMessage.decode(MemorySegment.ofArray(advert), 0, 32))
                .isEqualTo(new Advertisement(0, 1, 2, 3, 4, 5));
    }

    @Test
    void whatIsNotAMessageOfThisVersionIsRefused() {
        assertRefused("0201", "shorter than any header");
        String zeros = "0000000000000000";
        assertRefused("01010000" + "00000000" + "00000000" + "00000000" + zeros + zeros, "version 1");
        assertRefused("02040000" + "00000000" + "00000000" + "00000000", "unknown type 4");
        assertRefused("02010000" + "00000000" + "00000000" + "00000000" + zeros, "shorter than its 32-octet header");
        assertRefused("02010000" + "00000000" + "80000000" + "00000000" + zeros + zeros, "more than 2^31-1");
        assertRefused("02010001" + "00000000" + "00000004" + "00000000" + zeros + zeros + "616263",
                "4 immediate octets came with 3");
        assertRefused("02010000" + "00000000" + "00000004" + "00000000" + zeros + zeros + "61",
                "1 octets after its header");
        assertRefused("02010003" + "00000000" + "00000000" + "00000000" + zeros + zeros, "immediate and persistent");
        assertRefused("02010004" + "00000000" + "00000000" + "00000000" + zeros + zeros, "not persistent");
        assertRefused("02010000" + "00000000" + "00000000" + "00000000" + zeros + "8000000000000000",
                "more than 2^63-1");
        assertRefused("02030000" + "00000000" + "00000000", "a rearm of 12 octets");
        assertRefused("02020000" + "00000000" + "00000000" + "00000000" + "00", "acknowledgement of 17 octets");
        assertRefused("02020000" + "00000000" + "ffffffff" + "00000000", "more than 2^31-1");
    }

    @Test
    void helloKnownAnswerAndRefusals() throws Exception {
        PrivateData hello = new ExsHello(16, 512).encode();
        assertThat(HEX.formatHex(hello.toByteArray())).isEqualTo("45585302" + "00100000" + "00000200");
        assertThat(ExsHello.decode(hello)).isEqualTo(new ExsHello(16, 512));
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.EMPTY)).isInstanceOf(ExsProtocolException.class)
                .hasMessageContaining("0 octets");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("4d504101" + "00100000" + "00000200"))))
                .hasMessageContaining("not an EXS hello");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585301" + "00100000" + "00000200"))))
                .hasMessageContaining("version 1");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585302" + "00000000" + "00000200"))))
                .hasMessageContaining("0 slots");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585302" + "04010000" + "00000200"))))
                .hasMessageContaining("1025 slots");
        assertThatThrownBy(() -> ExsHello.decode(PrivateData.of(HEX.parseHex("45585302" + "00010000" + "00010001"))))
                .hasMessageContaining("65537 immediate");
    }

    private static void assertRefused(String hex, String why) {
        byte[] octets = HEX.parseHex(hex);
        assertThatThrownBy(() -> ExsMessage.decode(MemorySegment.ofArray(octets), 0, octets.length))
                .isInstanceOf(ExsProtocolException.class).hasMessageContaining(why);
    }
}
