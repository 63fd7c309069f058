package org.rddp.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.Octets;

class MpaFramingProperties {

    @Property(tries = 300)
    void whatIsFramedIsDeliveredWhateverTheReadSizes(@ForAll boolean markers, @ForAll boolean crc,
            @ForAll @Size(min = 1, max = 12) List<@IntRange(max = 5000) Integer> sizes, @ForAll long seed) {
        Random random = new Random(seed);
        MpaFramer framer = new MpaFramer(markers, crc);
        ByteBuffer wire = ByteBuffer.allocate(1 << 17);
        List<String> sent = new ArrayList<>();
        for (int size : sizes) {
            byte[] ulpdu = new byte[size];
            random.nextBytes(ulpdu);
            sent.add(Octets.toHex(ulpdu));
            int expected = framer.wireLength(size);
            assertThat(framer.frame(ByteBuffer.wrap(ulpdu), wire)).isEqualTo(expected);
        }
        wire.flip();
        List<String> received = new ArrayList<>();
        MpaDeframer deframer = new MpaDeframer(markers, crc, MpaFpduTest.collectHex(received));
        while (wire.hasRemaining()) {
            int read = Math.min(wire.remaining(), 1 + random.nextInt(random.nextBoolean() ? 8 : 3000));
            ByteBuffer piece = wire.slice(wire.position(), read);
            wire.position(wire.position() + read);
            assertThat(deframer.receive(piece)).isEqualTo(DecodeStatus.OK);
        }
        assertThat(received).isEqualTo(sent);
        assertThat(deframer.idle()).isTrue();
        assertThat(deframer.position()).isEqualTo(framer.position());
    }

    @Property
    void arbitraryOctetsNeverEscapeAsAnUncheckedException(@ForAll boolean markers,
            @ForAll @Size(max = 2000) byte[] octets) {
        List<String> received = new ArrayList<>();
        DecodeStatus status = new MpaDeframer(markers, true, MpaFpduTest.collectHex(received))
                .receive(ByteBuffer.wrap(octets));
        assertThat(status).isIn(DecodeStatus.OK, DecodeStatus.MPA_CRC, DecodeStatus.MPA_MARKER);
    }
}
