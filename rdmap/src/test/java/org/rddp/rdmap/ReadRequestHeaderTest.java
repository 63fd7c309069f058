package org.rddp.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rddp.wire.Octets.hex;

import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ReadRequestHeaderTest {
    private static final byte[] HEADER = hex("""
            00 00 11 22               # RFC 5040 §4.4 Data Sink STag
            00 00 00 00 00 00 10 00   # RFC 5040 §4.4 Data Sink Tagged Offset = 0x1000
            00 01 00 00               # RFC 5040 §4.4 RDMA Read Message Size = 65536
            ff 00 33 44               # RFC 5040 §4.4 Data Source STag
            80 00 00 00 00 00 00 08   # RFC 5040 §4.4 Data Source Tagged Offset (high bit set)
            """);
    private static final ReadRequestHeader VALUE = new ReadRequestHeader(0x1122, 0x1000, 65536, 0xFF003344,
            0x8000_0000_0000_0008L);

    @Test
    void decodesKnownAnswer() {
        assertThat(ReadRequestHeader.decode(MemorySegment.ofArray(HEADER), 0)).isEqualTo(VALUE);
    }

    @Test
    void encodesKnownAnswer() {
        byte[] out = new byte[28];
        VALUE.encodeTo(MemorySegment.ofArray(out), 0);
        assertThat(out).isEqualTo(HEADER);
    }

    @Test
    void progressesAsRfc5040Section48Describes() {
        // "if the RDMA Read Request was terminated after 2048 octets were sent, then the Data Sink Tagged
        // Offset = the original Data Sink Tagged Offset + 2048"; size = octets left
        ReadRequestHeader after = VALUE.progressedBy(2048);
        assertThat(after.sinkTo()).isEqualTo(0x1000 + 2048);
        assertThat(after.srcTo()).isEqualTo(0x8000_0000_0000_0008L + 2048);
        assertThat(after.readMessageSize()).isEqualTo(65536 - 2048);
        assertThat(after.sinkStag()).isEqualTo(VALUE.sinkStag());
        assertThatThrownBy(() -> VALUE.progressedBy(65537)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesToReadPastTheBuffer() {
        assertThatThrownBy(() -> ReadRequestHeader.decode(MemorySegment.ofArray(new byte[27]), 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Property
    void roundTrips(@ForAll int sinkStag, @ForAll long sinkTo, @ForAll int size, @ForAll int srcStag,
            @ForAll long srcTo) {
        ReadRequestHeader header = new ReadRequestHeader(sinkStag, sinkTo, size, srcStag, srcTo);
        byte[] out = new byte[28];
        header.encodeTo(MemorySegment.ofArray(out), 0);
        assertThat(ReadRequestHeader.decode(MemorySegment.ofArray(out), 0)).isEqualTo(header);
    }
}
