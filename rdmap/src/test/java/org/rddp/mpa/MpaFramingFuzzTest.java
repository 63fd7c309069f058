package org.rddp.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;

/**
 * Coverage-guided fuzzing of what an MPA peer sends (RFC 5044): the startup frames, and the FPDU stream of Full
 * Operation with and without Markers and CRC. Each input replays in the default run (its corpus is under
 * {@code MpaFramingFuzzTestInputs}); {@code JAZZER_FUZZ=1} fuzzes one harness (see {@code fuzz/README.md}).
 */
class MpaFramingFuzzTest {
    /** The FPDUs framed by our own framer that come before the fuzzed octets: a valid state to start from. */
    private static final int[] PREFIX_SIZES = {4, 18, 46, 511, 1, 2000, 28};

    /**
     * The FPDU stream after setup. Input: a mode octet (bit 0 Markers, bit 1 CRC, bits 2–4 how many valid FPDUs come
     * first), a chunking octet (the stream reaches the deframer in reads of that many octets, plus one), then the
     * peer's octets. Checks: the valid FPDUs come out as framed; every ULPDU lies within the memory it is handed in
     * and within the largest ULPDU; an error is final (nothing after it); how the stream is cut into reads changes
     * nothing.
     */
    @FuzzTest(maxDuration = "10s")
    void fpduStream(byte[] input) {
        if (input.length < 2) {
            return;
        }
        boolean markers = (input[0] & 1) != 0;
        boolean crc = (input[0] & 2) != 0;
        int prefixCount = (input[0] >> 2) & 7;
        int chunk = (input[1] & 0xFF) + 1;

        MpaFramer framer = new MpaFramer(markers, crc);
        ByteBuffer stream = ByteBuffer.allocate(prefixCount * 4096 + input.length);
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < prefixCount; i++) {
            byte[] ulpdu = new byte[PREFIX_SIZES[i % PREFIX_SIZES.length]];
            Arrays.fill(ulpdu, (byte) (i + 1));
            framer.frame(ByteBuffer.wrap(ulpdu), stream);
            expected.add(ulpdu);
        }
        stream.put(input, 2, input.length - 2).flip();

        Outcome whole = deframe(markers, crc, stream.duplicate(), stream.remaining());
        Outcome cut = deframe(markers, crc, stream.duplicate(), chunk);
        assertThat(whole.ulpdus.size()).isGreaterThanOrEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(whole.ulpdus.get(i)).as("valid FPDU %d", i).isEqualTo(expected.get(i));
        }
        assertThat(cut.status).isEqualTo(whole.status);
        assertThat(cut.ulpdus).hasSameSizeAs(whole.ulpdus);
        for (int i = 0; i < whole.ulpdus.size(); i++) {
            assertThat(cut.ulpdus.get(i)).as("ULPDU %d", i).isEqualTo(whole.ulpdus.get(i));
        }
    }

    /**
     * A startup frame as the responder reads a Request and as the initiator reads a Reply. Input: the kind octet,
     * then the frame. Checks: a frame decodes or is refused with a {@link MalformedFrameException} (nothing else); a
     * decoded frame is as long as its header says, keeps within the private-data limit, and encodes back to a frame
     * that decodes to itself.
     */
    @FuzzTest(maxDuration = "10s")
    void startupFrame(byte[] input) {
        if (input.length < 1) {
            return;
        }
        MpaStartupFrame.Kind kind = (input[0] & 1) == 0 ? MpaStartupFrame.Kind.REQUEST : MpaStartupFrame.Kind.REPLY;
        ByteBuffer frame = ByteBuffer.wrap(input, 1, input.length - 1).slice();
        int announced;
        try {
            announced = MpaStartupFrame.frameLength(frame, kind);
        } catch (MalformedFrameException refused) {
            assertThat(refused.status()).isNotEqualTo(DecodeStatus.OK);
            return;
        }
        assertThat(announced).isBetween(MpaStartupFrame.HEADER_LENGTH,
                MpaStartupFrame.HEADER_LENGTH + MpaStartupFrame.MAX_PRIVATE_DATA);
        assertThat(frame.position()).isZero();
        MpaStartupFrame decoded;
        try {
            decoded = MpaStartupFrame.decode(frame, kind);
        } catch (MalformedFrameException refused) {
            assertThat(refused.status()).isNotEqualTo(DecodeStatus.OK);
            return;
        }
        assertThat(decoded.length()).isEqualTo(announced).isEqualTo(frame.limit());
        assertThat(decoded.kind()).isEqualTo(kind);
        try {
            assertThat(MpaStartupFrame.decode(ByteBuffer.wrap(decoded.toByteArray()), kind)).isEqualTo(decoded);
        } catch (MalformedFrameException e) {
            throw new AssertionError("a decoded frame does not survive its own encoding: " + decoded, e);
        }
    }

    /** What a deframer made of a stream read {@code chunk} octets at a time. */
    private record Outcome(DecodeStatus status, List<byte[]> ulpdus) {
    }

    private static Outcome deframe(boolean markers, boolean crc, ByteBuffer stream, int chunk) {
        List<byte[]> ulpdus = new ArrayList<>();
        boolean[] failed = new boolean[1];
        MpaDeframer deframer = new MpaDeframer(markers, crc, (buffer, offset, length) -> {
            assertThat(failed[0]).as("a ULPDU after an error").isFalse();
            assertThat(length).isBetween(0, MpaFpdu.MAX_ULPDU_LENGTH_FIELD);
            assertThat(offset).isNotNegative();
            assertThat(offset + length).isLessThanOrEqualTo(buffer.byteSize());
            ulpdus.add(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        });
        DecodeStatus status = DecodeStatus.OK;
        while (stream.hasRemaining()) {
            int end = Math.min(stream.limit(), stream.position() + chunk);
            // each read in fresh memory, as a socket's buffer is reused: nothing may be kept pointing into it
            ByteBuffer read = ByteBuffer.allocate(end - stream.position());
            read.put(stream.slice(stream.position(), read.capacity())).flip();
            stream.position(end);
            DecodeStatus now = deframer.receive(read);
            assertThat(read.hasRemaining()).as("a read is consumed whole").isFalse();
            if (!status.ok()) {
                assertThat(now).as("an error is final").isEqualTo(status);
            }
            status = now;
            failed[0] = !status.ok();
        }
        assertThat(deframer.status()).isEqualTo(status);
        return new Outcome(status, ulpdus);
    }
}
