package org.rddp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.VerboseMode;
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
        // what JMH's annotation processor found: every @Benchmark method of the module
        Set<String> benchmarks = BenchmarkList.defaultList().getAll(OutputFormatFactory.createFormatInstance(
                System.out, VerboseMode.SILENT), List.of()).stream().map(BenchmarkListEntry::getUsername)
                .collect(Collectors.toSet());
        assertThat(benchmarks).as("the benchmarks this module has").isNotEmpty();
        assertThat(results.stream().map(result -> result.getParams().getBenchmark()).collect(Collectors.toSet()))
                .as("every benchmark ran").isEqualTo(benchmarks);
        for (RunResult result : results) {
            assertThat(result.getPrimaryResult().getSampleCount()).isPositive();
        }
    }
}
