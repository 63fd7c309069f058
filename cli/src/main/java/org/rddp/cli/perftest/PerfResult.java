package org.rddp.cli.perftest;

import java.util.Arrays;
import java.util.List;

/** What one size of a perftest-style run measured: bandwidth or latency. */
public sealed interface PerfResult permits PerfResult.Bandwidth, PerfResult.Latency, PerfResult.Scale {
    /** Message size in octets. */
    int bytes();

    /** Messages moved. */
    long iterations();

    /**
     * A bandwidth result, in perftest's units: MB/sec of 2^20 octets, millions of messages per second.
     *
     * @param bytes        message size
     * @param iterations   messages completed
     * @param peakMbps     the best tenth of the run
     * @param averageMbps  all octets over the whole run, first post to last completion
     * @param messageRateMpps messages per second over the whole run, in millions
     */
    record Bandwidth(int bytes, long iterations, double peakMbps, double averageMbps, double messageRateMpps)
            implements PerfResult {
        /** From octets and nanoseconds. */
        public static Bandwidth of(int bytes, long iterations, long nanos, double peakMbps) {
            double seconds = nanos / 1e9;
            double average = bytes * (double) iterations / seconds / (1 << 20);
            return new Bandwidth(bytes, iterations, Math.max(peakMbps, average), average, iterations / seconds / 1e6);
        }
    }

    /**
     * The Write bandwidth of many queue pairs together with how they came up ({@code compare --qps}).
     *
     * @param bandwidth all queue pairs' messages over the run
     * @param setup     the data connections' setup: how long, and what the process held before and after
     */
    record Scale(Bandwidth bandwidth, PerfSession.Setup setup) implements PerfResult {
        @Override
        public int bytes() {
            return bandwidth.bytes();
        }

        @Override
        public long iterations() {
            return bandwidth.iterations();
        }
    }

    /**
     * A latency result in microseconds, as perftest reports it (for Write and Send ping-pong, half the round
     * trip; for Read, the whole Read).
     *
     * @param bytes      message size
     * @param iterations samples
     * @param minUsec    fastest
     * @param maxUsec    slowest
     * @param typicalUsec the median
     * @param averageUsec mean
     * @param stdevUsec  standard deviation
     * @param p99Usec    99th percentile
     * @param p999Usec   99.9th percentile
     * @param percentiles the distribution, for a percentile chart: the latency at 0, 50, 75, 87.5 … % (each level
     *                   halving what is left above it, as far as the samples reach) and at 100 %
     */
    record Latency(int bytes, long iterations, double minUsec, double maxUsec, double typicalUsec,
            double averageUsec, double stdevUsec, double p99Usec, double p999Usec, List<Percentile> percentiles)
            implements PerfResult {
        public Latency {
            percentiles = List.copyOf(percentiles);
        }

        /** From samples in nanoseconds, each {@code divisor} times the latency (2 for a round trip). */
        public static Latency of(int bytes, long[] nanos, int divisor) {
            return of(bytes, nanos.length, nanos, divisor);
        }

        /** From samples of a run of {@code iterations} (perftest leaves its slowest out of the samples). */
        static Latency of(int bytes, long iterations, long[] nanos, int divisor) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            double scale = 1e3 * divisor;
            double mean = Arrays.stream(sorted).average().orElse(0);
            double variance = Arrays.stream(sorted).mapToDouble(v -> (v - mean) * (v - mean)).average().orElse(0);
            List<Percentile> percentiles = new java.util.ArrayList<>();
            for (double left = 1; left * sorted.length >= 1; left /= 2) {
                percentiles.add(new Percentile(100 * (1 - left), at(sorted, 1 - left) / scale));
            }
            percentiles.add(new Percentile(100, sorted[sorted.length - 1] / scale));
            return new Latency(bytes, iterations, sorted[0] / scale, sorted[sorted.length - 1] / scale,
                    at(sorted, 0.5) / scale, mean / scale, Math.sqrt(variance) / scale, at(sorted, 0.99) / scale,
                    at(sorted, 0.999) / scale, percentiles);
        }

        private static long at(long[] sorted, double fraction) {
            return sorted[Math.clamp((long) Math.ceil(sorted.length * fraction) - 1, 0, sorted.length - 1)];
        }
    }

    /** A latency at a percentile: {@code percent} of the samples took at most {@code usec}. */
    record Percentile(double percent, double usec) {
    }

    /** The median of {@code values} (the mean of the middle two for an even count), or NaN for none. */
    static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
