package org.rddp.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.mpa.MpaFpduTest.FIGURE_5;
import static org.rddp.mpa.MpaFpduTest.collect;
import static org.rddp.mpa.MpaFpduTest.collectHex;
import static org.rddp.mpa.MpaFpduTest.send;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rddp.error.MpaError;
import org.rddp.wire.DecodeStatus;

class MpaDeframerTest {

    @ParameterizedTest(name = "markers={0} crc={1}")
    @CsvSource({"true, true", "true, false", "false, true", "false, false"})
    void aStreamSplitAtEveryBoundaryDecodesTheSame(boolean markers, boolean crc) {
        byte[] stream = stream(markers, crc, 3, 700, 0, 1, 509, 2000);
        List<String> whole = new ArrayList<>();
        assertThat(new MpaDeframer(markers, crc, collectHex(whole)).receive(ByteBuffer.wrap(stream)).ok()).isTrue();
        assertThat(whole).hasSize(6);

        List<String> oneByOne = new ArrayList<>();
        MpaDeframer deframer = new MpaDeframer(markers, crc, collectHex(oneByOne));
        for (byte b : stream) {
            assertThat(deframer.receive(ByteBuffer.wrap(new byte[] {b})).ok()).isTrue();
        }
        assertThat(oneByOne).isEqualTo(whole);

        // the same six FPDUs again and again through one framer and one deframer, each time cut in two at
        // the next position: every cut point, at every phase of the Marker interval
        MpaFramer framer = new MpaFramer(markers, crc);
        List<String> two = new ArrayList<>();
        MpaDeframer reused = new MpaDeframer(markers, crc, collectHex(two));
        for (int split = 0; split <= stream.length; split++) {
            byte[] again = frame(framer, 3, 700, 0, 1, 509, 2000);
            int cut = Math.min(split, again.length);
            two.clear();
            assertThat(reused.receive(ByteBuffer.wrap(again, 0, cut)).ok()).isTrue();
            assertThat(reused.receive(ByteBuffer.wrap(again, cut, again.length - cut)).ok()).isTrue();
            assertThat(two).as("split at %d", split).isEqualTo(whole);
        }
    }

    @Test
    void deliversTheUlpdusThatWereFramed() {
        Random random = new Random(5044);
        MpaFramer framer = new MpaFramer(true, true);
        ByteBuffer wire = ByteBuffer.allocate(1 << 20);
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] ulpdu = new byte[random.nextInt(3000)];
            random.nextBytes(ulpdu);
            sent.add(ulpdu);
            int expected = framer.wireLength(ulpdu.length);
            assertThat(framer.frame(ByteBuffer.wrap(ulpdu), wire)).isEqualTo(expected);
        }
        List<byte[]> received = new ArrayList<>();
        MpaDeframer deframer = new MpaDeframer(true, true, collect(received));
        wire.flip();
        while (wire.hasRemaining()) {
            ByteBuffer piece = wire.slice(wire.position(), Math.min(wire.remaining(), 1 + random.nextInt(1500)));
            wire.position(wire.position() + piece.remaining());
            assertThat(deframer.receive(piece).ok()).isTrue();
        }
        assertThat(received).usingRecursiveComparison().isEqualTo(sent);
        assertThat(deframer.position()).isEqualTo(framer.position());
    }

    @Test
    void aBadCrcDeliversNothingAndStopsTheStream() {
        for (int i = 0; i < FIGURE_5.length; i++) {
            if (i < 4) {
                continue; // the leading Marker: a flipped FPDUPTR bit is a Marker error, tested below
            }
            byte[] bad = FIGURE_5.clone();
            bad[i] ^= 0x10;
            List<byte[]> ulpdus = new ArrayList<>();
            MpaDeframer deframer = new MpaDeframer(true, true, collect(ulpdus));
            DecodeStatus status = deframer.receive(ByteBuffer.wrap(bad));
            if (i == 4 || i == 5) {
                // a corrupted ULPDU_Length makes the FPDU look longer: nothing is delivered while it waits
                assertThat(status.ok() ? DecodeStatus.MPA_CRC : status).isIn(DecodeStatus.MPA_CRC,
                        DecodeStatus.MPA_MARKER);
            } else {
                assertThat(status).as("octet %d", i).isEqualTo(DecodeStatus.MPA_CRC);
            }
            assertThat(ulpdus).as("octet %d", i).isEmpty();
        }
        assertThat(DecodeStatus.MPA_CRC.terminateCause()).contains(MpaError.CRC_ERROR);
    }

    @Test
    void theErrorIsStickyAndLaterInputIsDiscarded() {
        byte[] bad = FIGURE_5.clone();
        bad[30] = 1;
        List<byte[]> ulpdus = new ArrayList<>();
        MpaDeframer deframer = new MpaDeframer(false, true, collect(ulpdus));
        byte[] noMarker = Arrays.copyOfRange(bad, 4, bad.length);
        assertThat(deframer.receive(ByteBuffer.wrap(noMarker))).isEqualTo(DecodeStatus.MPA_CRC);
        ByteBuffer good = ByteBuffer.wrap(Arrays.copyOfRange(FIGURE_5, 4, FIGURE_5.length));
        assertThat(deframer.receive(good)).isEqualTo(DecodeStatus.MPA_CRC);
        assertThat(good.hasRemaining()).isFalse();
        assertThat(ulpdus).isEmpty();
        assertThat(deframer.status()).isEqualTo(DecodeStatus.MPA_CRC);
    }

    @Test
    void withoutCrcsTheFieldIsNotChecked() {
        byte[] garbage = FIGURE_5.clone();
        garbage[garbage.length - 1] ^= (byte) 0xFF;
        List<byte[]> ulpdus = new ArrayList<>();
        assertThat(new MpaDeframer(true, false, collect(ulpdus)).receive(ByteBuffer.wrap(garbage)).ok()).isTrue();
        assertThat(ulpdus).hasSize(1);
    }

    @Test
    void aFirstMarkerThatIsNotZeroIsRejected() {
        byte[] bad = FIGURE_5.clone();
        bad[3] = 0x10;
        List<byte[]> ulpdus = new ArrayList<>();
        DecodeStatus status = new MpaDeframer(true, true, collect(ulpdus)).receive(ByteBuffer.wrap(bad));
        assertThat(status).isEqualTo(DecodeStatus.MPA_MARKER);
        assertThat(status.terminateCause()).contains(MpaError.MARKER_LENGTH_DISAGREE);
        assertThat(ulpdus).isEmpty();
    }

    @Test
    void aMarkerPointingOutsideItsFpduIsRejected() {
        byte[] stream = stream(true, true, 1000);
        // the Marker at 512 lies in the one FPDU, which starts at 4: FPDUPTR must be 508
        assertThat(stream[514] << 8 | stream[515] & 0xFF).isEqualTo(508);
        for (int pointer : new int[] {512, 504, 0, 0xFFFC, 4}) {
            byte[] bad = stream.clone();
            bad[514] = (byte) (pointer >> 8);
            bad[515] = (byte) pointer;
            List<byte[]> ulpdus = new ArrayList<>();
            assertThat(new MpaDeframer(true, true, collect(ulpdus)).receive(ByteBuffer.wrap(bad)))
                    .as("FPDUPTR %d", pointer).isEqualTo(DecodeStatus.MPA_MARKER);
            assertThat(ulpdus).isEmpty();
        }
    }

    @Test
    void theLowTwoBitsOfFpduPtrCountAsZero() {
        byte[] stream = stream(true, false, 1000);
        stream[515] |= 0x03; // RFC 5044 §4.3: "receivers MUST always treat these as zero"
        List<byte[]> ulpdus = new ArrayList<>();
        assertThat(new MpaDeframer(true, false, collect(ulpdus)).receive(ByteBuffer.wrap(stream)).ok()).isTrue();
        assertThat(ulpdus).hasSize(1);
    }

    @Test
    void aMarkerBetweenFpdusBelongsToTheNextOne() {
        // 4 (Marker) + 504 (FPDU with a 498-octet ULPDU) ends exactly at 508; one more 4-octet FPDU... use 508:
        // ULPDU 502 -> FPDU 2 + 502 + 0 + 4 = 508, so the first FPDU ends at 512 and the Marker there points 0.
        MpaFramer framer = new MpaFramer(true, true);
        ByteBuffer wire = ByteBuffer.allocate(2048);
        framer.frame(ByteBuffer.wrap(new byte[502]), wire);
        assertThat(wire.position()).isEqualTo(512);
        framer.frame(ByteBuffer.wrap(new byte[10]), wire);
        byte[] octets = Arrays.copyOf(wire.array(), wire.position());
        assertThat(Arrays.copyOfRange(octets, 512, 516)).containsExactly(0, 0, 0, 0);
        List<byte[]> ulpdus = new ArrayList<>();
        assertThat(new MpaDeframer(true, true, collect(ulpdus)).receive(ByteBuffer.wrap(octets)).ok()).isTrue();
        assertThat(ulpdus).extracting(u -> u.length).containsExactly(502, 10);
    }

    @Test
    void largestUlpduFits() {
        MpaFramer framer = new MpaFramer(true, true);
        ByteBuffer wire = ByteBuffer.allocate(framer.wireLength(MpaFpdu.MAX_ULPDU));
        byte[] ulpdu = new byte[MpaFpdu.MAX_ULPDU];
        new Random(1).nextBytes(ulpdu);
        framer.frame(ByteBuffer.wrap(ulpdu), wire);
        List<byte[]> ulpdus = new ArrayList<>();
        assertThat(new MpaDeframer(true, true, collect(ulpdus)).receive(wire.flip()).ok()).isTrue();
        assertThat(ulpdus.getFirst()).isEqualTo(ulpdu);
    }

    @Test
    void theFramerRefusesWhatDoesNotFit() {
        MpaFramer framer = new MpaFramer(false, true);
        ByteBuffer small = ByteBuffer.allocate(10);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> framer.frame(send(1, 0), small))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(small.position()).isZero();
        assertThat(framer.position()).isZero();
        ByteBuffer roomy = ByteBuffer.allocate(70_000);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> framer.frame(ByteBuffer.allocate(64_769), roomy))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64768");
        assertThat(roomy.position()).isZero();
    }

    @Test
    void anOverlongUlpduWithMarkersIsAMarkerError() {
        // RFC 5044 §3 caps ULPDUs at 64768 so that every FPDUPTR fits 16 bits; a longer FPDU cannot carry a
        // correct Marker, so the receiver finds the Marker and the ULPDU_Length in disagreement
        byte[] stream = new byte[4 + 2 + 65535 + 3 + 4 + 128 * 4];
        stream[4] = (byte) 0xFF;
        stream[5] = (byte) 0xFF;
        List<byte[]> ulpdus = new ArrayList<>();
        assertThat(new MpaDeframer(true, false, collect(ulpdus)).receive(ByteBuffer.wrap(stream)))
                .isEqualTo(DecodeStatus.MPA_MARKER);
        assertThat(ulpdus).isEmpty();
    }

    /** Frames Send ULPDUs with the given payload sizes into one stream. */
    static byte[] stream(boolean markers, boolean crc, int... payloads) {
        return frame(new MpaFramer(markers, crc), payloads);
    }

    /** The octets {@code framer} produces next for Sends with these payload sizes. */
    static byte[] frame(MpaFramer framer, int... payloads) {
        ByteBuffer wire = ByteBuffer.allocate(1 << 20);
        int msn = 1;
        for (int payload : payloads) {
            framer.frame(send(msn++, payload), wire);
        }
        return Arrays.copyOf(wire.array(), wire.position());
    }
}
