package org.rddp.interop.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;
import org.rddp.interop.PackagedRddp;

/**
 * What one lossy queue pair does to the others ({@code interop-tests/faults/lossy-qp.sh}: {@code write-bw} with four
 * queue pairs between two network namespaces, a share of queue pair 1's packets dropped). What must hold: the loss
 * was applied, every queue pair moved data on both transports, and over SCTP, where the queue pairs share one
 * association, none is starved: the others' median is within a factor of four of queue pair 1's either way (before
 * room in the association's send buffer went to sessions in turn, one queue pair took it all under loss, the others
 * 50 times less).
 */
@Isolated("it measures, and uses the namespaces the fault suite uses")
class LossyQueuePairTest {
    private static final Path ROOT = PackagedRddp.ROOT;
    private static final Path SCRIPT = ROOT.resolve("interop-tests/faults/lossy-qp.sh");
    private static final Path OUT = ROOT.resolve("interop-tests/target/faults/lossy-qp");

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aLossyQueuePairStarvesNoneOfTheOthers() throws Exception {
        Files.createDirectories(OUT);
        Path log = OUT.resolve("lossy-qp.log");
        ProcessBuilder builder = new ProcessBuilder(SCRIPT.toString(), "--qps", "4", "--seconds", "3", "--loss",
                "0.05", "--out", OUT.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        List<String> java = new ArrayList<>(PackagedRddp.java());
        java.addAll(List.of("-m", "org.rddp.cli/org.rddp.cli.Main"));
        builder.environment().put("RDDP", String.join(" ", java));
        Process process = builder.start();
        assertThat(process.waitFor(8, TimeUnit.MINUTES)).as("lossy-qp.sh finished").isTrue();
        String said = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(said).isZero();
        assertThat(said).containsPattern("netns.sh: the last scenario dropped [1-9]\\d* packets");
        List<String[]> rows = said.lines().filter(line -> line.matches("(mpa|sctp) .*")).map(line -> line.trim()
                .split("\\s+")).toList();
        assertThat(rows).as(said).hasSize(4);
        for (String[] row : rows) {
            double first = Double.parseDouble(row[2]);
            double others = Double.parseDouble(row[3]);
            assertThat(first).as(said).isPositive();
            assertThat(others).as(said).isPositive();
            if (row[0].equals("sctp")) {
                assertThat(others / first).as(said).isBetween(0.25, 4.0);
            }
        }
        System.out.println(said); // the table, for the record
    }
}
