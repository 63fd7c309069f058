package org.rddp.cli.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import org.rddp.cli.PeerException;

/**
 * Coverage-guided fuzzing of what a perftest peer sends in the prologue and the buffer exchange ({@link Perftest}):
 * its version, page size, cache line and buffer ({@code struct pingpong_dest}). Input: the four messages, each a
 * length octet then that many octets. Checks: a message is taken or refused with a {@link PeerException}, nothing
 * else; what is taken keeps the buffers this side registers within 2 × (the largest message + 1 MiB). Corpus under
 * {@code PerftestControlFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes (see {@code fuzz/README.md}).
 */
class PerftestControlFuzzTest {
    private static final long LARGEST_BUFFERS = 2L * (Perftest.MAX_SIZE + Perftest.LARGEST_PAGE);

    @FuzzTest(maxDuration = "10s")
    void prologue(byte[] input) {
        byte[][] messages = new byte[4][];
        int at = 0;
        for (int i = 0; i < messages.length; i++) {
            int length = at < input.length ? Math.min(input[at] & 0xFF, input.length - at - 1) : 0;
            messages[i] = at < input.length ? Arrays.copyOfRange(input, at + 1, at + 1 + length) : new byte[0];
            at += 1 + length;
        }
        try {
            Perftest.checkedVersion(messages[0]);
            int cycle = Perftest.agreed(Perftest.CYCLE_BUFFER, messages[1], Perftest.LARGEST_PAGE, "page size");
            int cacheLine = Perftest.agreed(Perftest.CACHE_LINE, messages[2], Perftest.LARGEST_CACHE_LINE,
                    "cache line");
            assertThat(Integer.bitCount(cycle)).isOne();
            assertThat(Integer.bitCount(cacheLine)).isOne();
            long half = Perftest.inc(Perftest.buffSize(Perftest.MAX_SIZE, cycle), cacheLine);
            assertThat(half).as("half of the buffers a peer makes this side register").isPositive();
            assertThat(2 * half).isLessThanOrEqualTo(LARGEST_BUFFERS);
            Perftest.Dest dest = Perftest.Dest.decode(messages[3]);
            assertThat(dest.toString()).isNotEmpty();
        } catch (PeerException refused) {
            assertThat(refused.getMessage()).startsWith("the peer");
        }
    }
}
