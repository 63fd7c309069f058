package org.rddp.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.wire.Octets.hex;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rddp.ddp.DdpSegment;
import org.rddp.wire.Octets;

/** The annotated FPDU hex dumps of RFC 5044 §4.4 and the size formulas of §4.1 and §4.5. */
class MpaFpduTest {

    /** RFC 5044 §4.4 Figure 5, octets 0000-0033: the first FPDU of a stream, with Markers and CRC. */
    static final byte[] FIGURE_5 = hex("""
            00 00 00 00               # 0000 Marker: Reserved, FPDUPTR 0 (first octets of Full Operation)
            00 2a                     # 0004 ULPDU Length = 42
            41 43                     # 0006 DDP Control Field, Send with Last flag set
            00 00 00 00               # 0008 Reserved (DDP STag position with no STag)
            00 00 00 00               # 000c DDP Queue = 0
            00 00 00 01               # 0010 DDP MSN = 1
            00 00 00 00               # 0014 DDP MO = 0
            00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00   # 0018 Send Data, 24 zeros
            52 23 99 83               # 0030 CRC32c, least significant octet first
            """);

    /** RFC 5044 §4.4 Figure 6, octets 01ec-021f: the second FPDU of that stream, with a Marker inside it. */
    static final byte[] FIGURE_6 = hex("""
            00 2a                     # 01ec Length = 42
            41 43                     # 01ee DDP Control Field: Send with Last Flag set
            00 00 00 00               # 01f0 Reserved (DDP STag position with no STag)
            00 00 00 00               # 01f4 DDP Queue = 0
            00 00 00 02               # 01f8 DDP MSN = 2
            00 00 00 00               # 01fc DDP MO = 0
            00 00 00 14               # 0200 Marker: Reserved, FPDUPTR 0x14 = 0x200 - 0x1ec
            00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00   # 0204 Send Data, 24 zeros
            84 92 58 98               # 021c CRC32c
            """);

    /** The first FPDU before Figure 6 "had a length of 492 octets", Marker included: a Send of 464 zeros. */
    private static final int FIRST_ULPDU = 492 - 4 - 2 - 4;

    @Test
    void figure5EncodesByteForByte() {
        ByteBuffer out = ByteBuffer.allocate(64);
        int written = new MpaFramer(true, true).frame(send(1, 24), out);
        assertThat(written).isEqualTo(FIGURE_5.length);
        assertThat(Arrays.copyOf(out.array(), written)).isEqualTo(FIGURE_5);
    }

    @Test
    void figure5Decodes() {
        List<byte[]> ulpdus = new ArrayList<>();
        MpaDeframer deframer = new MpaDeframer(true, true, collect(ulpdus));
        assertThat(deframer.receive(ByteBuffer.wrap(FIGURE_5)).ok()).isTrue();
        assertThat(ulpdus).hasSize(1);
        assertThat(ulpdus.getFirst()).isEqualTo(Arrays.copyOfRange(FIGURE_5, 6, 6 + 42));
        assertThat(deframer.idle()).isTrue();
    }

    @Test
    void figure6EncodesByteForByteAfterTheFirstFpdu() {
        ByteBuffer out = ByteBuffer.allocate(1024);
        MpaFramer framer = new MpaFramer(true, true);
        assertThat(framer.frame(send(1, FIRST_ULPDU - 18), out)).isEqualTo(0x1ec);
        int written = framer.frame(send(2, 24), out);
        assertThat(written).isEqualTo(FIGURE_6.length);
        assertThat(Arrays.copyOfRange(out.array(), 0x1ec, 0x1ec + written)).isEqualTo(FIGURE_6);
        assertThat(framer.position()).isEqualTo(0x220);
    }

    @Test
    void figure6DecodesWithItsMarkerStripped() {
        ByteBuffer stream = ByteBuffer.allocate(0x220);
        new MpaFramer(true, true).frame(send(1, FIRST_ULPDU - 18), stream);
        stream.put(FIGURE_6).flip();
        List<byte[]> ulpdus = new ArrayList<>();
        MpaDeframer deframer = new MpaDeframer(true, true, collect(ulpdus));
        assertThat(deframer.receive(stream).ok()).isTrue();
        assertThat(ulpdus).hasSize(2);
        assertThat(ulpdus.get(0)).hasSize(FIRST_ULPDU);
        byte[] expected = new byte[42];
        System.arraycopy(FIGURE_6, 2, expected, 0, 18);       // DDP header before the Marker
        assertThat(ulpdus.get(1)).isEqualTo(expected);       // 24 zeros after it; the Marker is gone
        assertThat(deframer.position()).isEqualTo(0x220);
    }

    @ParameterizedTest(name = "ULPDU {0}: pad {1}")
    @CsvSource({"42, 0", "0, 2", "1, 1", "2, 0", "3, 3", "4, 2", "65535, 3"})
    void padMakesTheFpduAMultipleOfFour(int ulpdu, int pad) {
        assertThat(MpaFpdu.padLength(ulpdu)).isEqualTo(pad);
        assertThat(MpaFpdu.fpduLength(ulpdu) % 4).isZero();
        assertThat(MpaFpdu.fpduLength(ulpdu)).isEqualTo(2 + ulpdu + pad + 4);
    }

    @ParameterizedTest(name = "EMSS {0}")
    @CsvSource({
        // EMSS, with Markers, without (RFC 5044 §4.5; the 1460 example is the digest's §4.3)
        "1460, 1442, 1454",
        "9000, 8922, 8994",
        "536,  522,  530",
        "100,  128,  128",   // never below 128
        "65535, 64768, 64768",   // never above 64768 (§3)
        "64000, 63494, 63994",
    })
    void mulpduFollowsSection45(int emss, int withMarkers, int withoutMarkers) {
        assertThat(MpaFpdu.mulpdu(emss, true)).isEqualTo(withMarkers);
        assertThat(MpaFpdu.mulpdu(emss, false)).isEqualTo(withoutMarkers);
    }

    /** A Send ULPDU: untagged DDP header on QN 0 with the given MSN and {@code payload} zero octets. */
    static ByteBuffer send(int msn, int payload) {
        byte[] octets = new byte[18 + payload];
        new DdpSegment().bind(MemorySegment.ofArray(octets), 0, octets.length)
                .writeUntagged(true, 0x43, 0, 0, msn, 0);
        return ByteBuffer.wrap(octets);
    }

    static MpaDeframer.UlpduHandler collect(List<byte[]> into) {
        return (buffer, offset, length) -> into.add(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    /** Collects each ULPDU as hex, for cheap comparison of many runs. */
    static MpaDeframer.UlpduHandler collectHex(List<String> into) {
        return (buffer, offset, length) -> into.add(Octets.toHex(buffer.asSlice(offset, length)
                .toArray(ValueLayout.JAVA_BYTE)));
    }
}
