package org.rddp.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution archive as a user without Maven gets it ({@code cli/target/rddp-<version>.tar.gz}): unpacked into
 * a folder of its own, its {@code bin/rddp} says its version and runs a one-point comparison, charts and all.
 */
class DistributionTest {
    @TempDir
    Path folder;

    private String run(List<String> command, Path in) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home")); // the JDK this build runs on
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }

    @Test
    void theUnpackedArchiveSaysItsVersionAndRunsAComparison() throws Exception {
        Path target = PackagedRddp.ROOT.resolve("cli/target");
        Path archive;
        try (Stream<Path> files = Files.list(target)) {
            archive = files.filter(file -> file.getFileName().toString().matches("rddp-[0-9].*\\.tar\\.gz"))
                    .findFirst().orElseThrow(() -> new IOException("no rddp-<version>.tar.gz in " + target));
        }
        String version = archive.getFileName().toString().replaceFirst("^rddp-", "").replaceFirst("\\.tar\\.gz$", "");
        run(List.of("tar", "xzf", archive.toString()), folder);
        Path home = folder.resolve("rddp-" + version);
        assertThat(home.resolve("LICENSE")).exists();
        assertThat(home.resolve("NOTICE")).exists();
        assertThat(home.resolve("lib").resolve("rddp-cli-" + version + ".jar")).exists();
        String rddp = home.resolve("bin/rddp").toString();
        assertThat(run(List.of(rddp, "--version"), folder)).startsWith("rddp " + version);
        Path out = folder.resolve("compare");
        String compare = run(List.of(rddp, "compare", "-t", "mpa", "--sizes", "1024", "--latency-iters", "200",
                "--out", out.toString()), folder);
        assertThat(compare).contains("RDDP over MPA");
        assertThat(Files.readString(out.resolve("compare.json"))).contains("rddp " + version + ", commit");
        assertThat(Files.size(out.resolve("bandwidth.png"))).isPositive();
    }
}
