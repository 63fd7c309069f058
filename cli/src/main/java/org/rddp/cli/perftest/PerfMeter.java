package org.rddp.cli.perftest;

import java.util.concurrent.TimeUnit;
import org.rddp.cli.perftest.PerfSession.Settings;

/**
 * Counts completions: start to last, and the fastest window of an eighth of them, at least four times what every
 * queue pair's send queue holds (perftest's "peak": local completions come fast while the transport's buffers fill;
 * with many queue pairs, many queues' worth come at once). With a
 * duration, only the middle of the run counts, as perftest samples it: a quarter of the duration (whole
 * seconds) is left out at each end.
 */
final class PerfMeter {
    private final Settings settings;
    private final int size;
    /** Completions (of every queue pair) the peak is measured over. */
    final long window;
    long begin;
    long end;
    long count;
    long lastReport;
    private long markTime;
    private long markCount;
    private double peak;
    private long sampleFrom;
    private long sampleTo;
    private long stopAt;
    private long countAtFrom = -1;
    private long timeAtFrom;
    private long countAtTo = -1;
    private long timeAtTo;

    PerfMeter(int size, int txDepth, Settings settings) {
        this.size = size;
        this.settings = settings;
        // counts are of every queue pair's completions: with 100 queue pairs a window of one queue's worth measured
        // a burst of completions that came together, a "peak" of 400 GB/s
        long qps = Math.max(1, settings.qps());
        this.window = Math.max(4L * txDepth * qps, settings.iterations() * qps / 8);
    }

    boolean started() {
        return begin != 0;
    }

    void start() {
        if (begin == 0) {
            begin = System.nanoTime();
            markTime = begin;
            lastReport = begin;
            long seconds = settings.seconds();
            long margin = seconds / 4;
            sampleFrom = begin + TimeUnit.SECONDS.toNanos(margin);
            sampleTo = begin + TimeUnit.SECONDS.toNanos(seconds - margin);
            stopAt = begin + TimeUnit.SECONDS.toNanos(seconds);
        }
    }

    /** With a duration, once started: the time left until it is over (zero or less: over). */
    java.time.Duration left() {
        return java.time.Duration.ofNanos(stopAt - System.nanoTime());
    }

    /** With a duration: whether it is over (never before the first post). */
    boolean over() {
        return settings.seconds() > 0 && begin != 0 && System.nanoTime() - stopAt >= 0;
    }

    void tick() {
        tick(1);
    }

    /** {@code n} more completed now (a signaled request and the unsignaled ones before it). */
    void tick(int n) {
        long now = System.nanoTime();
        count += n;
        end = now;
        if (count - markCount >= window) {
            peak = Math.max(peak, (count - markCount) * (double) size / ((now - markTime) / 1e9) / (1 << 20));
            markTime = now;
            markCount = count;
        }
        if (settings.seconds() > 0) {
            if (countAtFrom < 0 && now - sampleFrom >= 0) {
                countAtFrom = count;
                timeAtFrom = now;
            }
            if (countAtTo < 0 && now - sampleTo >= 0) {
                countAtTo = count;
                timeAtTo = now;
            }
        }
    }

    PerfResult.Bandwidth result() {
        if (settings.seconds() > 0) {
            long from = countAtFrom < 0 ? 0 : countAtFrom;
            long to = countAtTo < 0 ? count : countAtTo;
            long nanos = Math.max(1, (countAtTo < 0 ? end : timeAtTo) - (countAtFrom < 0 ? begin : timeAtFrom));
            return PerfResult.Bandwidth.of(size, to - from, nanos, 0);
        }
        return PerfResult.Bandwidth.of(size, count, Math.max(1, end - begin), peak);
    }
}
