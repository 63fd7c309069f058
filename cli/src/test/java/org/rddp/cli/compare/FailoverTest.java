package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rddp.cli.perftest.Arrivals;

/**
 * Issue 51: how compare's failover scenarios are named, what the scenario command must say, and what a failure did to
 * a transfer, read off arrivals made up to the millisecond.
 */
class FailoverTest {
    private static final Instant START = Instant.parse("2026-12-07T10:00:00Z");
    private static final int OCTETS = 16384;

    /**
     * A trace with {@code rate} messages in each millisecond bin of {@code ranges} (from, to, rate: milliseconds and
     * messages), its last arrival at the end of the last range.
     */
    private static Arrivals.Trace trace(int length, int[]... ranges) {
        int[] messages = new int[length];
        long[] octets = new long[length];
        long total = 0;
        int last = 0;
        for (int[] range : ranges) {
            last = Math.max(last, range[1]);
            for (int i = range[0]; i < range[1]; i++) {
                messages[i] += range[2];
                octets[i] += (long) range[2] * OCTETS;
                total += range[2];
            }
        }
        return new Arrivals.Trace(START, Duration.ofMillis(1), messages, octets, total, total * OCTETS, START,
                START.plusMillis(last), Duration.ZERO, null);
    }

    private static Instant at(long millis) {
        return START.plusMillis(millis);
    }

    @Test
    void aTransferThatGoesOnOverAnotherPathIsTimedFromTheFailureToItsFirstMessageThere() {
        // full rate to 3 s, what was on its way until 3.002 s, nothing to 3.300 s, a trickle, full rate from 3.600 s
        Arrivals.Trace trace = trace(10_000, new int[] {0, 3002, 4}, new int[] {3300, 3600, 1},
                new int[] {3600, 10_000, 4});
        Failover.Outcome outcome = Failover.outcome(trace, at(3000), at(7000), at(10_000));
        assertThat(outcome.toOtherPath()).isEqualTo(Duration.ofMillis(300));
        assertThat(outcome.afterReturn()).isNull();
        assertThat(outcome.stall()).isEqualTo(Duration.ofMillis(298));
        assertThat(outcome.toHalfRate()).as("the first 100 ms at half the rate of before (34 ms at full rate, 66 "
                + "trickling) ends at 3.634 s").isEqualTo(Duration.ofMillis(634));
        assertThat(outcome.resumed()).isTrue();
        assertThat(outcome.mbpsBefore()).isCloseTo(4 * 1000 * OCTETS / (double) (1 << 20), within());
        assertThat(outcome.mbpsAfter()).isCloseTo(outcome.mbpsBefore(), within());
    }

    @Test
    void aTransferThatWaitsForThePathIsTimedFromItsReturn() {
        Arrivals.Trace trace = trace(12_000, new int[] {0, 3000, 2}, new int[] {7400, 12_000, 2});
        Failover.Outcome outcome = Failover.outcome(trace, at(3000), at(7000), at(12_000));
        assertThat(outcome.toOtherPath()).isNull();
        assertThat(outcome.afterReturn()).isEqualTo(Duration.ofMillis(400));
        assertThat(outcome.stall()).isEqualTo(Duration.ofMillis(4400));
        assertThat(outcome.mbpsDuring()).isZero();
        assertThat(outcome.toHalfRate()).isEqualTo(Duration.ofMillis(4450));
    }

    @Test
    void aTransferThatNeverStopsForLongHasGoneOnAtOnce() {
        Arrivals.Trace trace = trace(8000, new int[] {0, 3010, 3}, new int[] {3040, 8000, 3});
        Failover.Outcome outcome = Failover.outcome(trace, at(3000), at(5000), at(8000));
        assertThat(outcome.toOtherPath()).as("30 ms without a message: shorter than a stall").isZero();
        assertThat(outcome.stall()).isEqualTo(Duration.ofMillis(30));
    }

    @Test
    void aTransferThatEndedAtTheFailureTellsNothingOfIt() {
        Arrivals.Trace trace = trace(6000, new int[] {0, 3010, 1});
        Failover.Outcome outcome = Failover.outcome(trace, at(3000), at(5000), at(3010));
        assertThat(outcome.resumed()).isFalse();
        assertThat(outcome.toOtherPath()).as("not 'went on at once'").isNull();
        assertThat(outcome.mbpsDuring()).isNaN();
    }

    @Test
    void aTransferThatEndedStillStandingNeverResumed() {
        Arrivals.Trace trace = trace(6000, new int[] {0, 3000, 1});
        Failover.Outcome outcome = Failover.outcome(trace, at(3000), at(5000), at(6000));
        assertThat(outcome.resumed()).isFalse();
        assertThat(outcome.toOtherPath()).isNull();
        assertThat(outcome.afterReturn()).isNull();
        assertThat(outcome.toHalfRate()).isNull();
    }

    @Test
    void scenariosAreNamedWithTheirFailureAndDuration() {
        Failover.Scenario blackhole = Failover.Scenario.parse("failover blackhole 6");
        assertThat(blackhole.command()).containsExactly("fail", "blackhole", "6.000");
        assertThat(blackhole.transferSeconds()).as("2 s before, 6 down, 6 + 3 after, 1 to fail").isEqualTo(18);
        Failover.Scenario flap = Failover.Scenario.parse("failover flap 3");
        assertThat(flap.command()).containsExactly("flap", "3", "5.000", "2.000");
        assertThat(flap.faultLength()).isEqualTo(Duration.ofSeconds(16));
        assertThat(Failover.Scenario.parse("failover link-down 0.5").down()).isEqualTo(Duration.ofMillis(500));
        assertThat(Failover.Scenario.is("failover flap 2 4 1")).isTrue();
        assertThat(Failover.Scenario.is("loss 0.01")).isFalse();
        for (String wrong : List.of("failover", "failover blackhole", "failover blackhole 0", "failover cut 3",
                "failover flap 0", "failover blackhole 300")) {
            assertThatThrownBy(() -> Failover.Scenario.parse(wrong)).as(wrong)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** Answers to requests sent at {@code sent} milliseconds, each taking the round trip beside it. */
    private static Arrivals.Trace answers(long[] sent, long[] roundTrip) {
        long[] asked = new long[sent.length];
        long[] answered = new long[sent.length];
        for (int i = 0; i < sent.length; i++) {
            asked[i] = sent[i] * 1_000_000L;
            answered[i] = asked[i] + roundTrip[i] * 1_000L; // microseconds
        }
        return new Arrivals.Trace(START, Duration.ofMillis(1), new int[0], new long[0], sent.length,
                sent.length * 1024L, START, START.plusNanos(answered[sent.length - 1]), Duration.ZERO, null, asked,
                answered);
    }

    @Test
    void anIdleConnectionsFirstRequestAfterTheFailureIsTimedWhereverItWasAnswered() {
        // a request every 500 ms; the path down from 3.2 s to 5.2 s; the first one sent after, at 3.5 s, answered
        // over another path after 300 ms, the next ones at once
        Arrivals.Trace trace = answers(new long[] {1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500},
                new long[] {100, 120, 80, 100, 90, 300_000, 100, 100, 100, 100});
        FailoverIdle.Outcome outcome = FailoverIdle.outcome(trace, at(3200), at(5200));
        assertThat(outcome.first()).isEqualTo(Duration.ofMillis(300));
        assertThat(outcome.firstWhileDown()).isTrue();
        assertThat(outcome.afterReturn()).isNull();
        assertThat(outcome.longest()).isEqualTo(Duration.ofMillis(300));
        assertThat(outcome.asked()).as("sent at 3.5, 4, 4.5 and 5 s").isEqualTo(4);
        assertThat(outcome.answeredWhileDown()).isEqualTo(4);
        assertThat(outcome.before()).as("the median of 1.5, 2, 2.5 and 3 s's").isEqualTo(Duration.ofNanos(100_000));
        // a single path: the one sent at 3.5 s answered 400 ms after the return, the ones behind it with it
        Arrivals.Trace waited = answers(new long[] {3000, 3500, 4000, 4500, 5000, 5500},
                new long[] {100, 2_100_000, 1_600_000, 1_100_000, 600_000, 100});
        FailoverIdle.Outcome single = FailoverIdle.outcome(waited, at(3200), at(5200));
        assertThat(single.firstWhileDown()).isFalse();
        assertThat(single.afterReturn()).isEqualTo(Duration.ofMillis(400));
        assertThat(single.longest()).isEqualTo(Duration.ofMillis(2100));
        assertThat(single.answeredWhileDown()).isZero();
        assertThat(single.asked()).isEqualTo(4);
    }

    @Test
    void answersBeyondTheRoomMadeForThemAreCountedNotKept() {
        Arrivals arrivals = new Arrivals(Duration.ofSeconds(1), 2);
        for (int i = 0; i < 5; i++) {
            arrivals.answered(1024, System.nanoTime());
        }
        Arrivals.Trace trace = arrivals.trace();
        assertThat(trace.messages()).isEqualTo(5);
        assertThat(trace.answers()).as("the first two kept, the arrays never grown").isEqualTo(2);
    }

    @Test
    void anIdleScenarioIsATransfersWithIdleBeforeTheFailure() {
        Failover.Scenario idle = Failover.Scenario.parse("failover idle flap 2 3 1");
        assertThat(idle.idle()).isTrue();
        assertThat(idle.command()).containsExactly("flap", "2", "3.000", "1.000");
        assertThat(idle).hasToString("the first path blackholed 1.0 s every 4.0 s, 2 times, " + FailoverIdle.LOAD);
        assertThat(Failover.Scenario.parse("failover idle link-down 2").kind()).isEqualTo("link-down");
        assertThat(FailoverOutput.name(Failover.Scenario.parse("failover idle blackhole 6")))
                .isEqualTo("failover-idle-blackhole-6.000");
        Compare.Task task = FailoverIdle.task(Compare.Series.RDDP_SCTP, Failover.Scenario.parse(
                "failover idle blackhole 6"));
        assertThat(task.iterations()).isEqualTo(18 * FailoverIdle.RATE);
        assertThat(Compare.Task.parse(task.encode())).isEqualTo(task);
        assertThatThrownBy(() -> Failover.Scenario.parse("failover idle")).isInstanceOf(
                IllegalArgumentException.class);
    }

    @Test
    void theScenarioCommandSaysWhenEachFailureBeganAndEnded() {
        Failover.Fault fault = Failover.Fault.parse("failed 1796676692.505691370\nrestored 1796676696.560136873\n"
                + "netns.sh: the blackhole dropped 594 packets on the first path\n");
        assertThat(fault.failed()).containsExactly(Instant.ofEpochSecond(1796676692L, 505691370));
        assertThat(fault.restored()).containsExactly(Instant.ofEpochSecond(1796676696L, 560136873));
        assertThat(fault.said()).containsExactly("netns.sh: the blackhole dropped 594 packets on the first path");
        assertThatThrownBy(() -> Failover.Fault.parse("failed 1796676692.5\n"))
                .hasMessageContaining("one of each per failure");
    }

    @Test
    void onlyTheSocketsAndRddpHaveATransferAndOnlyThoseWithALoadAnIdleConnection() {
        assertThat(Failover.measures(Compare.Series.TCP_SOCKET_MPTCP)).isTrue();
        assertThat(Failover.measures(Compare.Series.RDDP_SCTP)).isTrue();
        assertThat(Failover.measures(Compare.Series.SCTP_SOCKET)).isTrue();
        assertThat(Failover.measures(Compare.Series.MPA_FLOOR)).isFalse();
        assertThat(Failover.measures(Compare.Series.RDDP_MPA_6)).isFalse();
        assertThatThrownBy(() -> new Compare.Task(Compare.Series.MPA_FLOOR, Compare.FAILOVER, Failover.SIZE, 10))
                .isInstanceOf(IllegalArgumentException.class);
        Failover.Scenario idle = Failover.Scenario.parse("failover idle blackhole 2");
        assertThat(Failover.measures(Compare.Series.SCTP_SOCKET, idle)).isFalse();
        assertThat(Failover.measures(Compare.Series.RDDP_MPA_MPTCP, idle)).isTrue();
        Compare.Task task = new Compare.Task(Compare.Series.RDDP_MPA_MPTCP, Compare.FAILOVER, Failover.SIZE, 17);
        assertThat(Compare.Task.parse(task.encode())).isEqualTo(task);
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(1e-6);
    }
}
