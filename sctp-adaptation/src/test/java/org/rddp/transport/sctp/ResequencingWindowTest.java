package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rddp.wire.Wire;

/** RFC 5043 §10's re-sequencing, driven chunk by chunk: every outcome is decided by the DDP-SSNs alone. */
class ResequencingWindowTest {
    private final ResequencingWindow window = new ResequencingWindow();
    private final List<String> delivered = new ArrayList<>();
    private final ResequencingWindow.Delivery record = (ppid, chunk, length, placed) -> delivered.add(
            Wire.u16(chunk, 0) + (ppid == 17 ? "c" : "") + (placed ? "p" : "") + "/" + length);

    /** A chunk: its DDP-SSN, then {@code length - 2} octets. */
    private static MemorySegment chunk(int ssn, int length) {
        MemorySegment chunk = MemorySegment.ofArray(new byte[length]);
        Wire.putU16(chunk, 0, ssn);
        return chunk;
    }

    /** What the session does with a chunk: delivers it, holds it, or refuses it (the returned verdict). */
    private ResequencingWindow.Verdict arrive(int ssn, boolean placed) {
        ResequencingWindow.Verdict verdict = window.classify(ssn);
        MemorySegment chunk = chunk(ssn, 10 + ssn % 7);
        switch (verdict) {
            case DELIVER -> window.deliver(16, chunk, (int) chunk.byteSize(), record);
            case HOLD -> window.hold(ssn, 16, chunk, 0, (int) chunk.byteSize(), placed);
            default -> { }
        }
        return verdict;
    }

    @Test
    void chunksInOrderAreDeliveredAtOnce() {
        for (int ssn = 0; ssn < 5; ssn++) {
            assertThat(arrive(ssn, false)).isEqualTo(ResequencingWindow.Verdict.DELIVER);
        }
        assertThat(delivered).containsExactly("0/10", "1/11", "2/12", "3/13", "4/14");
        assertThat(window.expected()).isEqualTo(5);
    }

    @Test
    void earlyChunksWaitForTheirTurnAndCarryWhetherTheirPayloadWasPlaced() {
        assertThat(arrive(3, true)).isEqualTo(ResequencingWindow.Verdict.HOLD);
        assertThat(arrive(1, false)).isEqualTo(ResequencingWindow.Verdict.HOLD);
        assertThat(delivered).isEmpty();
        assertThat(arrive(0, false)).isEqualTo(ResequencingWindow.Verdict.DELIVER);
        assertThat(delivered).containsExactly("0/10", "1/11"); // 2 is missing: 3 still waits
        assertThat(arrive(2, false)).isEqualTo(ResequencingWindow.Verdict.DELIVER);
        assertThat(delivered).containsExactly("0/10", "1/11", "2/12", "3p/13");
        assertThat(window.expected()).isEqualTo(4);
    }

    @Test
    void aSecondCopyOfAHeldChunkIsADuplicateAndOneAlreadyDeliveredIsOutside() {
        arrive(0, false);
        assertThat(arrive(2, false)).isEqualTo(ResequencingWindow.Verdict.HOLD);
        assertThat(window.classify(2)).isEqualTo(ResequencingWindow.Verdict.DUPLICATE);
        assertThat(window.classify(0)).as("behind the expected DDP-SSN").isEqualTo(ResequencingWindow.Verdict.OUTSIDE);
    }

    @ParameterizedTest(name = "expecting {0}: DDP-SSN {1} is {2}")
    @CsvSource({
        "0, 1023, HOLD",          // the last slot of the window
        "0, 1024, OUTSIDE",       // one beyond it
        "65535, 0, HOLD",         // the sequence wraps: 0 follows 65535
        "65535, 1022, HOLD",
        "65535, 1023, OUTSIDE",
        "5, 4, OUTSIDE",          // just behind
        "5, 32772, OUTSIDE",      // half the space ahead is behind
    })
    void theWindowReachesSizeMinusOneAheadAcrossTheWrap(int expected, int ssn, ResequencingWindow.Verdict verdict) {
        deliverUpTo(expected - 1);
        assertThat(window.expected()).isEqualTo(expected);
        assertThat(window.classify(ssn)).isEqualTo(verdict);
    }

    @Test
    void heldChunksAreDeliveredAcrossTheWrap() {
        deliverUpTo(65533);
        assertThat(arrive(1, false)).isEqualTo(ResequencingWindow.Verdict.HOLD);
        assertThat(arrive(0, false)).isEqualTo(ResequencingWindow.Verdict.HOLD);
        delivered.clear();
        assertThat(arrive(65534, false)).isEqualTo(ResequencingWindow.Verdict.DELIVER);
        assertThat(arrive(65535, false)).isEqualTo(ResequencingWindow.Verdict.DELIVER);
        assertThat(delivered).containsExactly("65534/10", "65535/11", "0/10", "1/11");
        assertThat(window.expected()).isEqualTo(2);
    }

    @Test
    void aChunkThatEndsTheSessionStartsTheWindowOverAtZero() {
        // the peer's Terminate (DDP-SSN 2) arrives before its Send (1): delivering the Send delivers the Terminate,
        // which ends the session; the next session on the stream starts at DDP-SSN 0 (RFC 5043 §6.1)
        ResequencingWindow.Delivery endsOnControl = (ppid, chunk, length, placed) -> {
            record.deliver(ppid, chunk, length, placed);
            if (ppid == 17) {
                window.reset();
            }
        };
        window.deliver(17, chunk(0, 4), 4, record);
        window.hold(2, 17, chunk(2, 4), 0, 4, false);
        window.hold(3, 16, chunk(3, 12), 0, 12, false); // a chunk after the Terminate: gone with the session
        window.deliver(16, chunk(1, 12), 12, endsOnControl);
        assertThat(delivered).containsExactly("0c/4", "1/12", "2c/4");
        assertThat(window.expected()).isZero();
        assertThat(window.classify(3)).as("the old session's chunk is not held any more")
                .isEqualTo(ResequencingWindow.Verdict.HOLD);
        window.deliver(17, chunk(0, 4), 4, endsOnControl);
        assertThat(window.expected()).as("the new session's Initiate started it over once more").isZero();
    }

    /** Delivers, in order, every chunk from the expected one to {@code last} (none when it is behind). */
    private void deliverUpTo(int last) {
        for (int ssn = window.expected(); ssn <= last; ssn++) {
            window.deliver(16, chunk(ssn, 10), 10, (ppid, chunk, length, placed) -> { });
        }
    }
}
