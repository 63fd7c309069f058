package org.rddp.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;

class DdpHeaderProperties {

    @Property
    void taggedHeadersRoundTrip(@ForAll boolean last, @ForAll @IntRange(max = 255) int rsvdUlp, @ForAll int stag,
            @ForAll long to, @ForAll @IntRange(max = 64) int payload) throws MalformedFrameException {
        byte[] octets = new byte[14 + payload];
        MemorySegment buffer = MemorySegment.ofArray(octets);
        new DdpSegment().bind(buffer, 0, octets.length).writeTagged(last, rsvdUlp, stag, to);
        DdpSegment segment = new DdpSegment();
        assertThat(segment.wrap(buffer, 0, octets.length)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.header()).isEqualTo(DdpTaggedHeader.of(last, rsvdUlp, stag, to));
        assertThat(segment.payloadLength()).isEqualTo(payload);
        assertThat(DdpHeader.decode(buffer, 0, octets.length).toByteArray())
                .isEqualTo(java.util.Arrays.copyOf(octets, 14));
    }

    @Property
    void untaggedHeadersRoundTrip(@ForAll boolean last, @ForAll @IntRange(max = 255) int rsvdUlp,
            @ForAll int invalidateStag, @ForAll int qn, @ForAll int msn, @ForAll int mo)
            throws MalformedFrameException {
        DdpUntaggedHeader header = DdpUntaggedHeader.of(last, rsvdUlp, invalidateStag, qn, msn, mo);
        byte[] octets = header.toByteArray();
        DdpSegment segment = new DdpSegment();
        assertThat(segment.wrap(MemorySegment.ofArray(octets), 0, octets.length)).isEqualTo(DecodeStatus.OK);
        assertThat(segment.header()).isEqualTo(header);
        assertThat(DdpHeader.decode(MemorySegment.ofArray(octets), 0, octets.length)).isEqualTo(header);
    }

    @Property
    void arbitraryOctetsNeverEscapeAsAnUncheckedException(@ForAll @Size(max = 40) byte[] octets) {
        DecodeStatus status = new DdpSegment().wrap(MemorySegment.ofArray(octets), 0, octets.length);
        assertThat(status).isIn(DecodeStatus.OK, DecodeStatus.DDP_SEGMENT_TRUNCATED, DecodeStatus.DDP_TAGGED_VERSION,
                DecodeStatus.DDP_UNTAGGED_VERSION);
        try {
            DdpHeader.decode(MemorySegment.ofArray(octets), 0, octets.length);
        } catch (MalformedFrameException e) {
            assertThat(e.status()).isEqualTo(DecodeStatus.DDP_SEGMENT_TRUNCATED);
        }
    }
}
