package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.cli.perftest.PerfResult;

/**
 * How {@code compare} sizes its bandwidth points, against a made-up transport whose rate climbs as it warms: a short
 * first warm-up is repeated, longer, so that a point sized by time lasts about that time, not a fraction of it. And
 * how long its latency warm-ups last: long enough for the JIT's second tier, a quarter of a point's time at most.
 */
class CompareWarmUpTest {
    private static final int SIZE = 64;
    private static final double STEADY = 100.0 * (1 << 20); // octets a second once warm

    /**
     * A transport that reaches {@link #STEADY} only after a 5 ms start: a run of {@code n} messages takes 5 ms plus
     * {@code n * SIZE / STEADY}. Records the messages each bandwidth run was asked for.
     */
    private static final class Warming implements Compare.Measure {
        final List<Long> bandwidthRuns = new ArrayList<>();

        @Override
        public PerfResult run(Compare.Task task) {
            if (!task.bandwidth()) {
                return PerfResult.Latency.of(task.size(), new long[] {1_000}, 2);
            }
            bandwidthRuns.add(task.iterations());
            double seconds = 0.005 + task.iterations() * (double) task.size() / STEADY;
            return PerfResult.Bandwidth.of(task.size(), task.iterations(), (long) (seconds * 1e9), 0);
        }
    }

    private static Compare.Plan plan(long bandwidthBytes, int repeat) {
        return new Compare.Plan(List.of(SIZE), bandwidthBytes, 1.0, 10, 0, repeat,
                List.of(Compare.Series.RDDP_MPA), null);
    }

    @Test
    void aShortWarmUpRunsAgainLongerAndThePointLastsAboutItsSecond() throws Exception {
        Warming transport = new Warming();
        Compare.run(plan(0, 1), transport, "test", line -> { });
        List<Long> runs = transport.bandwidthRuns;
        assertThat(runs.size()).as("warm-up runs, then the point").isBetween(3, Compare.WARM_UP_RUNS + 1);
        assertThat(runs.getFirst()).isEqualTo(20_000);
        long point = runs.getLast();
        double seconds = 0.005 + point * (double) SIZE / STEADY;
        // sized from the first warm-up alone (20,000 messages in 17 ms) the point would have lasted 0.3 s
        assertThat(seconds).as("the measured point, in seconds").isBetween(0.9, 1.1);
    }

    @Test
    void pointsOfAGivenVolumeWarmUpOnce() throws Exception {
        Warming transport = new Warming();
        Compare.run(plan(2L << 20, 2), transport, "test", line -> { });
        assertThat(transport.bandwidthRuns).containsExactly(20_000L, 32_768L, 32_768L);
    }

    @Test
    void pointsOfASmallVolumeWarmUpWithIt() throws Exception {
        List<Long> runs = new ArrayList<>();
        Compare.run(new Compare.Plan(List.of(65536), 16L << 20, 1.0, 10, 0, 1, List.of(Compare.Series.TCP_SOCKET),
                null), task -> {
                    if (task.bandwidth()) {
                        runs.add(task.iterations());
                    }
                    return new Warming().run(task);
                }, "test", line -> { });
        assertThat(runs).as("16 MiB of 64 KiB messages to warm up, as each point").containsExactly(256L, 256L);
    }

    @Test
    void aFirstWarmUpThatLastedLongEnoughRunsOnceMoreAndNoMore() throws Exception {
        Compare.Measure slow = task -> task.bandwidth()
                ? PerfResult.Bandwidth.of(task.size(), task.iterations(), TimeUnit.MILLISECONDS.toNanos(400), 0)
                : PerfResult.Latency.of(task.size(), new long[] {1_000}, 2);
        List<Long> runs = new ArrayList<>();
        Compare.run(plan(0, 1), task -> {
            if (task.bandwidth()) {
                runs.add(task.iterations());
            }
            return slow.run(task);
        }, "test", line -> { });
        assertThat(runs).as("20,000 in 0.4 s, cold; again at the same rate; then a point of 1 s")
                .containsExactly(20_000L, 20_000L, 50_000L);
    }

    /**
     * A transport that warms as the JIT warms RDDP's path on two busy cores: its first two runs average a sixth of
     * {@link #STEADY} while their fastest part climbs (a quarter of it, then half), then it runs at {@link #STEADY}.
     */
    @Test
    void aWarmUpWhosePeakStillClimbsRunsAgainAndThePointLastsItsSecond() throws Exception {
        List<Long> runs = new ArrayList<>();
        Compare.run(plan(0, 1), task -> {
            if (!task.bandwidth()) {
                return PerfResult.Latency.of(task.size(), new long[] {1_000}, 2);
            }
            runs.add(task.iterations());
            int run = runs.size();
            double average = run <= 2 ? STEADY / 6 : STEADY;
            double peak = run == 1 ? STEADY / 4 : run == 2 ? STEADY / 2 : STEADY;
            long nanos = (long) (task.iterations() * (double) task.size() / average * 1e9);
            return PerfResult.Bandwidth.of(task.size(), task.iterations(), nanos, peak / (1 << 20));
        }, "test", line -> { });
        long point = runs.getLast();
        // sized from the second run (as long as a warm-up should last, as slow on average as the first) the point
        // would have lasted a sixth of a second
        assertThat(point * (double) SIZE / STEADY).as("the measured point, in seconds").isBetween(0.9, 1.1);
        assertThat(runs.size()).as("warm-up runs, then the point").isBetween(4, Compare.WARM_UP_RUNS + 1);
    }

    @Test
    void aWarmUpThatNeverSettlesEndsAfterTwoPointsTime() throws Exception {
        List<Long> runs = new ArrayList<>();
        double[] spent = {0};
        Compare.run(plan(0, 1), task -> {
            if (!task.bandwidth()) {
                return PerfResult.Latency.of(task.size(), new long[] {1_000}, 2);
            }
            runs.add(task.iterations());
            double average = STEADY / 10; // never even: its peak is always three times its average
            long nanos = (long) (task.iterations() * (double) task.size() / average * 1e9);
            spent[0] += nanos / 1e9;
            return PerfResult.Bandwidth.of(task.size(), task.iterations(), nanos, 3 * average / (1 << 20));
        }, "test", line -> { });
        double point = runs.getLast() * (double) SIZE / (STEADY / 10);
        assertThat(runs.size()).isLessThanOrEqualTo(Compare.WARM_UP_RUNS + 1);
        // it stops once it has run two points' time; its last run lasts a quarter of a point at its peak pace
        assertThat(spent[0] - point).as("warm-up seconds").isBetween(Compare.WARM_UP_POINTS, Compare.WARM_UP_POINTS
                + 1);
    }

    /** The round trips each latency run of {@code plan} was asked for, at a round trip of {@code roundTripNanos}. */
    private static List<Long> latencyRuns(Compare.Plan plan, long roundTripNanos) throws Exception {
        List<Long> runs = new ArrayList<>();
        Compare.run(plan, task -> {
            if (task.bandwidth()) {
                return new Warming().run(task);
            }
            runs.add(task.iterations());
            return PerfResult.Latency.of(task.size(), new long[] {roundTripNanos}, 2);
        }, "test", line -> { });
        return runs;
    }

    @Test
    void aLatencyWarmUpRunsAgainForAQuarterOfAPointUpToTwentyPoints() throws Exception {
        Compare.Plan plan = new Compare.Plan(List.of(SIZE), 0, 1.0, 1_000, SIZE, 1,
                List.of(Compare.Series.RDDP_MPA), null);
        // 10 µs round trips: a quarter of a second is 25,000 of them, more than 20 points of 1,000
        assertThat(latencyRuns(plan, 10_000)).as("200 round trips, 20,000 more, then the point")
                .containsExactly(200L, 20_000L, 1_000L);
        // 100 µs round trips: a quarter of a second is 2,500 of them
        assertThat(latencyRuns(plan, 100_000)).containsExactly(200L, 2_500L, 1_000L);
        // 2 ms round trips: the first 200 took longer than a quarter of a point already
        assertThat(latencyRuns(plan, 2_000_000)).containsExactly(200L, 1_000L);
    }

    @Test
    void pointsOfAGivenVolumeWarmTheirLatencyUpBriefly() throws Exception {
        Compare.Plan plan = new Compare.Plan(List.of(SIZE), 2L << 20, 1.0, 50, SIZE, 2,
                List.of(Compare.Series.RDDP_MPA), null);
        assertThat(latencyRuns(plan, 10_000)).as("as many as a point makes, then the points")
                .containsExactly(50L, 50L, 50L);
    }
}
