package org.rddp.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.wire.Octets.hex;
import static org.rddp.wire.Octets.segment;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpSegment;
import org.rddp.wire.DecodeStatus;

class DdpSegmentChunkTest {
    private static final byte[] CHUNK = hex("""
            00 07                     # RFC 5043 §5.2.1 DDP-SSN 7
            c1 40                     # RFC 5041 §4.2: T=1 L=1 DV=1; RDMAP RV=1 RDMA Write (RFC 5040 §4.1)
            00 00 ab cd               # STag
            00 00 00 00 00 00 02 00   # TO 0x200
            01 02 03 04               # payload
            """);
    private final DdpSegmentChunk chunk = new DdpSegmentChunk();

    @Test
    void decodesKnownAnswer() {
        assertThat(chunk.wrap(segment(CHUNK), 0, CHUNK.length, DdpSctp.MIN_MAX_CHUNK_LENGTH, 1))
                .isEqualTo(DecodeStatus.OK);
        assertThat(chunk.ddpSsn()).isEqualTo(7);
        DdpSegment segment = chunk.segment();
        assertThat(segment.tagged()).isTrue();
        assertThat(segment.stag()).isEqualTo(0xabcd);
        assertThat(segment.to()).isEqualTo(0x200);
        assertThat(segment.payloadLength()).isEqualTo(4);
        assertThat(segment.payloadOffset()).isEqualTo(16);
    }

    @Test
    void encodesKnownAnswer() {
        byte[] out = new byte[CHUNK.length];
        MemorySegment buffer = segment(out);
        DdpSegmentChunk.writeDdpSsn(buffer, 0, 7);
        new DdpSegment().bind(buffer, DdpSegmentChunk.SEGMENT_OFFSET, out.length - 2).writeTagged(true, 0x40, 0xabcd,
                0x200);
        System.arraycopy(CHUNK, 16, out, 16, 4);
        assertThat(out).isEqualTo(CHUNK);
    }

    @Test
    void rejectsChunksOverTheAdvertisedMaximum() {
        byte[] big = Arrays.copyOf(CHUNK, 517);
        assertThat(chunk.wrap(segment(big), 0, big.length, 516, 1)).isEqualTo(DecodeStatus.SCTP_CHUNK_OVERSIZED);
        assertThat(chunk.wrap(segment(big), 0, 516, 516, 1)).isEqualTo(DecodeStatus.OK);
    }

    @Test
    void rejectsTruncatedChunks() {
        assertThat(chunk.wrap(segment(CHUNK), 0, 0, 516, 1)).isEqualTo(DecodeStatus.SCTP_CHUNK_TRUNCATED);
        assertThat(chunk.wrap(segment(CHUNK), 0, 1, 516, 1)).isEqualTo(DecodeStatus.SCTP_CHUNK_TRUNCATED);
        assertThat(chunk.wrap(segment(CHUNK), 0, 2, 516, 1)).isEqualTo(DecodeStatus.DDP_SEGMENT_TRUNCATED);
        assertThat(chunk.wrap(segment(CHUNK), 0, 15, 516, 1)).isEqualTo(DecodeStatus.DDP_SEGMENT_TRUNCATED);
    }

    @Test
    void reportsDdpVersionErrorsOfTheSegment() {
        byte[] bad = CHUNK.clone();
        bad[2] = (byte) 0xc2;
        assertThat(chunk.wrap(segment(bad), 0, bad.length, 516, 1)).isEqualTo(DecodeStatus.DDP_TAGGED_VERSION);
    }

    @Property
    void arbitraryOctetsNeverEscapeAsAnUncheckedException(@ForAll @Size(max = 600) byte[] octets,
            @ForAll @IntRange(min = 516, max = 600) int max) {
        DecodeStatus status = chunk.wrap(segment(octets), 0, octets.length, max, 1);
        assertThat(status).isIn(DecodeStatus.OK, DecodeStatus.SCTP_CHUNK_OVERSIZED, DecodeStatus.SCTP_CHUNK_TRUNCATED,
                DecodeStatus.DDP_SEGMENT_TRUNCATED, DecodeStatus.DDP_TAGGED_VERSION, DecodeStatus.DDP_UNTAGGED_VERSION);
    }
}
