package org.rddp.cli.perftest;

import java.time.Instant;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code --timeline}: a bandwidth run's completions second by second, each line with the wall-clock time it ends at,
 * and at the end the longest pause between two completions with the time it ended (the first completion after it):
 * what a path failure, and a failover, look like to the application. Lines go to {@code out}; nothing is allocated
 * per completion.
 */
final class Timeline {
    private static final long SECOND = 1_000_000_000L;

    private final int size;
    private final Consumer<String> out;
    private final Instant epoch = Instant.now();
    private final long epochNanos = System.nanoTime();
    private long secondStart = epochNanos;
    private long inSecond;
    private long last;
    private long longestPause;
    private long pauseEnded;

    Timeline(int size, Consumer<String> out) {
        this.size = size;
        this.out = out;
    }

    /** One completion, now. */
    void tick() {
        tick(1);
    }

    /** {@code n} messages completed now (one completion seen for them). */
    void tick(int n) {
        long now = System.nanoTime();
        second(now);
        inSecond += n;
        if (last != 0 && now - last > longestPause) {
            longestPause = now - last;
            pauseEnded = now;
        }
        last = now;
    }

    /** Prints the seconds that ended before {@code now}. */
    private void second(long now) {
        while (now - secondStart >= SECOND) {
            secondStart += SECOND;
            out.accept(String.format(Locale.ROOT, "timeline %s %d messages %.2f MB/sec", at(secondStart), inSecond,
                    inSecond * (double) size / (1 << 20)));
            inSecond = 0;
        }
    }

    /** The run ended: its last part-second, and the longest pause. */
    void end() {
        long now = System.nanoTime();
        second(now);
        double fraction = (now - secondStart) / (double) SECOND;
        out.accept(String.format(Locale.ROOT, "timeline %s %d messages %.2f MB/sec (the last %.2f s)", at(now),
                inSecond, fraction > 0 ? inSecond * (double) size / (1 << 20) / fraction : 0.0, fraction));
        out.accept(String.format(Locale.ROOT, "timeline longest pause between completions: %d ms, ended %s",
                longestPause / 1_000_000, longestPause == 0 ? "-" : at(pauseEnded)));
    }

    private Instant at(long nanos) {
        return epoch.plusNanos(nanos - epochNanos);
    }
}
