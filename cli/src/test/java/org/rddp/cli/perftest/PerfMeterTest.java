package org.rddp.cli.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peak's window counts every queue pair's completions, as the meter does. */
class PerfMeterTest {
    private static PerfSession.Settings settings(int iterations, int qps) {
        return new PerfSession.Settings(Perftest.Test.WRITE_BW, List.of(4096), iterations, 0, 128, 1, qps, false,
                Duration.ofSeconds(10));
    }

    @Test
    void thePeakWindowCoversFourOfEveryQueuePairsSendQueuesAndAnEighthOfAllTheirWork() {
        assertThat(new PerfMeter(4096, 128, settings(20_000, 1)).window).isEqualTo(2_500);
        // 100 queue pairs: 2,000,000 completions, up to 12,800 of them outstanding and completing together
        assertThat(new PerfMeter(4096, 128, settings(20_000, 100)).window).isEqualTo(250_000);
        assertThat(new PerfMeter(4096, 128, settings(1_000, 100)).window).isEqualTo(4 * 128 * 100);
    }
}
