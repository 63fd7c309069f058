package org.rddp.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EnhancedConnectionDataTest {

    /** RFC 6581 §9: |A|B| IRD (14) |C|D| ORD (14)|, network order. */
    @ParameterizedTest(name = "0x{0}")
    @CsvSource({
        // word,    A,     B,     C,     D,     IRD,  ORD
        "00000000, false, false, false, false, 0,     0",       // client-server, no reads
        "00100004, false, false, false, false, 16,    4",       // client-server, IRD 16 ORD 4
        "80108010, true,  false, true,  false, 16,    16",      // P2P, zero-length Write RTR (siw's choice)
        "c0014001, true,  true,  false, true,  1,     1",       // P2P, Send and Read RTR
        "bfffffff, true,  false, true,  true,  16383, 16383",   // P2P, Write+Read RTR, 0x3FFF both: ULP negotiates
        "7fffffff, false, false, false, false, 16383, 16383",   // A=0: B, C, D ignored on receive (RFC 6581 §9.2)
    })
    void decodesKnownAnswers(String word, boolean a, boolean b, boolean c, boolean d, int ird, int ord) {
        EnhancedConnectionData data = EnhancedConnectionData.decode(Integer.parseUnsignedInt(word, 16));
        assertThat(data).isEqualTo(new EnhancedConnectionData(a, b, c, d, ird, ord));
    }

    @Test
    void encodesKnownAnswers() {
        assertThat(new EnhancedConnectionData(true, false, true, false, 16, 16).encode()).isEqualTo(0x80108010);
        assertThat(new EnhancedConnectionData(true, true, false, true, 1, 1).encode()).isEqualTo(0xC0014001);
        assertThat(EnhancedConnectionData.clientServer(EnhancedConnectionData.NO_NEGOTIATION, 0).encode())
                .isEqualTo(0x3FFF0000);
    }

    @Test
    void refusesOutOfRangeDepthsAndRtrWithoutPeerToPeer() {
        assertThatThrownBy(() -> EnhancedConnectionData.clientServer(0x4000, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EnhancedConnectionData.clientServer(0, -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EnhancedConnectionData(false, false, true, false, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void roundTrips(@ForAll boolean p2p, @ForAll boolean b, @ForAll boolean c, @ForAll boolean d,
            @ForAll @IntRange(max = 0x3FFF) int ird, @ForAll @IntRange(max = 0x3FFF) int ord) {
        EnhancedConnectionData data = new EnhancedConnectionData(p2p, p2p && b, p2p && c, p2p && d, ird, ord);
        assertThat(EnhancedConnectionData.decode(data.encode())).isEqualTo(data);
    }

    @Property
    void everyWordDecodes(@ForAll int word) {
        EnhancedConnectionData data = EnhancedConnectionData.decode(word);
        if (data.peerToPeer()) {
            assertThat(data.encode()).isEqualTo(word);
        } else {
            assertThat(data.anyRtr()).isFalse();
        }
    }
}
