package org.rddp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.verbs.RdmaDevice;

/** How a thread that drives its own loop waits for a completion while the loop brings other work. */
class CompletionsTest {
    /**
     * A loop whose poller finds nothing {@code quiet} times, then a stream's data every fourth cycle, forever, and
     * never a completion; it counts the times the loop blocked in it.
     */
    private static final class Arrivals implements Poller {
        private final int quiet;
        int polls;
        final AtomicInteger blocked = new AtomicInteger();

        Arrivals(int quiet) {
            this.quiet = quiet;
        }

        @Override
        public int poll() {
            int n = polls++;
            return n >= quiet && (n - quiet) % 4 == 0 ? 1 : 0;
        }

        @Override
        public void await(long timeoutNanos) {
            blocked.incrementAndGet();
        }

        @Override
        public void wakeup() {
        }

        @Override
        public void close() {
        }
    }

    @Test
    @Timeout(30)
    void aWaitWhoseLoopKeepsWorkingStillEndsAtItsDeadlineWithoutSleepingPerArrival() throws PeerException {
        Completions completions = new Completions(new RdmaDevice("test").createCompletionQueue(4),
                Duration.ofMillis(200));
        Arrivals busy = new Arrivals(0);
        try (Loop loop = Loop.manual("arrivals", busy)) {
            assertThat(completions.within("a completion that never comes", 1, Duration.ofMillis(200)))
                    .as("the wait runs out though the loop never went idle").isNull();
        }
        if (Completions.MAY_SPIN) { // on one processor a wait sleeps at once (SPINS is 0)
            assertThat(busy.blocked).as("never idle for " + Completions.SPINS + " polls: it never slept")
                    .hasValue(0);
            assertThat(busy.polls).isGreaterThan(Completions.CLOCK_POLLS);
        }
    }

    @Test
    @Timeout(30)
    void aThreadWokenByItsLoopsWorkPollsAgainRatherThanSleepAtEachArrival() throws PeerException {
        Completions completions = new Completions(new RdmaDevice("test").createCompletionQueue(4),
                Duration.ofMillis(200));
        // idle through the spins (two polls each: the loop, then the queue's own poll runs it) and the first cycles of
        // the wait, so that the loop blocks once; then the data
        Arrivals later = new Arrivals(2 * Completions.SPINS + 3);
        try (Loop loop = Loop.manual("arrivals", later)) {
            assertThat(completions.within("a completion that never comes", 1, Duration.ofMillis(200))).isNull();
        }
        if (Completions.MAY_SPIN) {
            assertThat(later.polls).as("data came, every fourth cycle").isGreaterThan(2 * Completions.SPINS + 100);
            assertThat(later.blocked).as("it slept once, before the data, and polled while the data came")
                    .hasValue(1);
        }
    }
}
