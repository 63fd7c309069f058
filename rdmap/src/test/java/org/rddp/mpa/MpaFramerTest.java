package org.rddp.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The framer's three ways to make one FPDU agree octet for octet: from one ULPDU buffer, from a header and a payload
 * where they lie, and around a payload sent in place (the gathering write's head and tail); the deframer takes each
 * back. Sizes cover every PAD (RFC 5044 §4.2) and the CRC on and off (§4.4).
 */
class MpaFramerTest {

    @ParameterizedTest(name = "header {0}, payload {1}, CRC {2}")
    @CsvSource({"14, 0, true", "18, 1, true", "14, 2, true", "18, 3, true", "14, 4000, true", "18, 64750, true",
        "18, 5, false", "28, 16385, false"})
    void everyWayOfFramingGivesTheSameOctets(int headerLength, int payloadLength, boolean crc) {
        byte[] header = new byte[headerLength];
        byte[] payload = new byte[payloadLength];
        for (int i = 0; i < headerLength; i++) {
            header[i] = (byte) (0x80 + i);
        }
        for (int i = 0; i < payloadLength; i++) {
            payload[i] = (byte) (i * 31 + 7);
        }
        ByteBuffer ulpdu = ByteBuffer.allocate(headerLength + payloadLength).put(header).put(payload).flip();
        ByteBuffer whole = ByteBuffer.allocateDirect(MpaFpdu.fpduLength(headerLength + payloadLength));
        new MpaFramer(false, crc).frame(ulpdu, whole);

        ByteBuffer parts = ByteBuffer.allocateDirect(whole.capacity() + 8).position(8); // not at the buffer's start
        int written = new MpaFramer(false, crc).frame(MemorySegment.ofArray(header), 0, headerLength,
                MemorySegment.ofArray(payload), 0, payloadLength, parts);
        assertThat(written).isEqualTo(whole.capacity());
        assertThat(parts.position()).isEqualTo(8 + written);

        ByteBuffer framed = ByteBuffer.allocateDirect(8 + 2 + headerLength + 7).position(5); // not at the start
        ByteBuffer body = ByteBuffer.wrap(payload);
        int split = new MpaFramer(false, crc).frameAround(MemorySegment.ofArray(header), 0, headerLength, body,
                framed);
        assertThat(body.position()).as("the body is left as it was").isZero();
        ByteBuffer around = ByteBuffer.allocate(whole.capacity()).put(framed.duplicate().limit(split).position(5))
                .put(body).put(framed.duplicate().flip().position(split));

        byte[] expected = octets(whole.flip());
        assertThat(octets(parts.flip().position(8))).isEqualTo(expected);
        assertThat(around.array()).isEqualTo(expected);

        List<byte[]> delivered = new ArrayList<>();
        assertThat(new MpaDeframer(false, crc, MpaFpduTest.collect(delivered)).receive(ByteBuffer.wrap(around.array()))
                .ok()).isTrue();
        assertThat(delivered).hasSize(1);
        assertThat(delivered.getFirst()).isEqualTo(ulpdu.array());
    }

    private static byte[] octets(ByteBuffer buffer) {
        byte[] octets = new byte[buffer.remaining()];
        buffer.duplicate().get(octets);
        return octets;
    }
}
