package org.rddp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark once, briefly, in this JVM: they must run and produce a score. Their numbers are not
 * judged here; run the benchmarks jar for those.
 */
class BenchmarksSmokeTest {

    @Test
    void everyBenchmarkRuns() throws Exception {
        Options options = new OptionsBuilder()
                .include("org\\.rddp\\.bench\\..*")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(200))
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).as("every @Benchmark method: codec 3, post/poll 1, guards 4").hasSize(8);
        for (RunResult result : results) {
            assertThat(result.getPrimaryResult().getSampleCount()).isPositive();
        }
    }
}
