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
    /** A budget that counts what the window takes, up to {@link #limit}. */
    private static final class Counted implements ResequencingWindow.Budget {
        long limit = Long.MAX_VALUE;
        long taken;

        @Override
        public boolean take(long octets) {
            if (taken + octets > limit) {
                return false;
            }
            taken += octets;
            return true;
        }

        @Override
        public void give(long octets) {
            taken -= octets;
            assertThat(taken).as("never more given back than taken").isNotNegative();
        }
    }

    private final Counted budget = new Counted();
    private final ResequencingWindow window = new ResequencingWindow(budget);
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
        "0, 32767, HOLD",         // the last DDP-SSN a sender may have unacknowledged (RFC 5043 §10)
        "0, 32768, OUTSIDE",      // one beyond it: half the space ahead is behind
        "65535, 0, HOLD",         // the sequence wraps: 0 follows 65535
        "65535, 32766, HOLD",
        "65535, 32767, OUTSIDE",
        "5, 4, OUTSIDE",          // just behind
        "5, 32772, HOLD",
        "5, 32773, OUTSIDE",
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

    /**
     * Everything held is counted: each copy, and the slots, which grow with the distance ahead; what is delivered or
     * dropped with the session is given back, to the octet.
     */
    @Test
    void whatTheWindowHoldsIsTakenFromItsBudgetAndGivenBack() {
        assertThat(window.hold(3, 16, chunk(3, 100), 0, 100, false)).isTrue();
        long first = ResequencingWindow.COPY_OVERHEAD + 100 + 16L * ResequencingWindow.SLOT_OCTETS;
        assertThat(budget.taken).isEqualTo(first);
        assertThat(window.hold(1000, 16, chunk(1000, 50), 0, 50, false)).isTrue();
        assertThat(budget.taken).isEqualTo(first + ResequencingWindow.COPY_OVERHEAD + 50
                + (1024L - 16) * ResequencingWindow.SLOT_OCTETS);
        assertThat(window.held()).isEqualTo(2);
        assertThat(window.octets()).isEqualTo(budget.taken);
        for (int ssn = 0; ssn < 3; ssn++) {
            window.deliver(16, chunk(ssn, 10), 10, record);
        }
        assertThat(window.held()).as("3 was delivered in its turn").isOne();
        window.reset();
        assertThat(budget.taken).as("all of it back once the session is over").isZero();
        assertThat(window.held()).isZero();
    }

    @Test
    void aChunkTheBudgetCannotTakeIsNotHeldAndChangesNothing() {
        budget.limit = 2_000;
        assertThat(window.hold(1, 16, chunk(1, 1000), 0, 1000, false)).isTrue();
        long before = budget.taken;
        assertThat(window.hold(2, 16, chunk(2, 1000), 0, 1000, false)).as("past the limit").isFalse();
        assertThat(budget.taken).isEqualTo(before);
        assertThat(window.classify(2)).as("not held, so not a duplicate either").isEqualTo(
                ResequencingWindow.Verdict.HOLD);
        assertThat(window.hold(30_000, 16, chunk(30_000, 4), 0, 4, false)).as("its slots alone pass the limit")
                .isFalse();
        window.deliver(16, chunk(0, 10), 10, record);
        assertThat(delivered).containsExactly("0/10", "1/1000");
        assertThat(window.expected()).isEqualTo(2);
        assertThat(budget.taken).as("only the slots are left").isEqualTo(16L * ResequencingWindow.SLOT_OCTETS);
    }

    @Test
    void slotsGrowAcrossTheWrapAndEveryHeldChunkKeepsItsPlace() {
        deliverUpTo(65530);
        for (int ahead : new int[] {3, 20, 300, 9_000}) {
            int ssn = (65531 + ahead) & 0xFFFF;
            assertThat(window.hold(ssn, 16, chunk(ssn, 8), 0, 8, ahead == 20)).isTrue();
        }
        for (int ssn = 65531; ssn != ((65531 + 9_001) & 0xFFFF); ssn = (ssn + 1) & 0xFFFF) {
            if (window.classify(ssn) == ResequencingWindow.Verdict.DELIVER) {
                window.deliver(16, chunk(ssn, 10), 10, record);
            }
        }
        assertThat(delivered).filteredOn(line -> line.endsWith("/8")).containsExactly(
                ((65531 + 3) & 0xFFFF) + "/8", ((65531 + 20) & 0xFFFF) + "p/8", ((65531 + 300) & 0xFFFF) + "/8",
                ((65531 + 9_000) & 0xFFFF) + "/8");
        assertThat(window.held()).isZero();
    }

    /** Delivers, in order, every chunk from the expected one to {@code last} (none when it is behind). */
    private void deliverUpTo(int last) {
        for (int ssn = window.expected(); ssn <= last; ssn++) {
            window.deliver(16, chunk(ssn, 10), 10, (ppid, chunk, length, placed) -> { });
        }
    }
}
