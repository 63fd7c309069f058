package org.rddp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void theDemoPrintsRealFramesAndDecodesThemBack() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"demo"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(printed)
                .contains("0030  52 23 99 83")                 // RFC 5044 Figure 5's CRC, the last line of the FPDU
                .contains("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65") // "MPA ID Req Frame"
                .contains("0000  00 00 00 05 00 08 00 04 01 02 03")      // Enhanced Session Initiate
                .contains("one bit flipped: MPA_CRC")
                .endsWith("All frames decoded back to what was encoded." + System.lineSeparator());
    }

    /** {@code rddp -o DIR} is {@code rddp compare -o DIR}: options with no command are the main job's. */
    @Test
    void optionsWithNoCommandAreTheMainJobs() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"--sctp-stack", "no-such-stack", "-t", "sctp"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String said = err.toString(StandardCharsets.UTF_8);
        assertThat(said).as("compare took the options").doesNotContain("Unknown option").contains("no-such-stack");
        assertThat(status).isNotZero();
    }

    /** A server runs until a signal ends it: with {@code --stats} its counters are printed on the way out. */
    @Test
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aServerEndedBySigtermPrintsItsCounters() throws Exception {
        Process server = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "interop", "--serve", "-t", "mpa", "-B", "127.0.0.1", "-p", "0", "--stats")
                .redirectErrorStream(true).start();
        try (java.io.BufferedReader lines = server.inputReader(StandardCharsets.UTF_8)) {
            String line = lines.readLine();
            while (line != null && !line.contains("serving on")) {
                line = lines.readLine();
            }
            assertThat(line).as("the server started").isNotNull();
            server.toHandle().destroy(); // SIGTERM (Process.destroy would close our end of its output too)
            StringBuilder rest = new StringBuilder();
            for (line = lines.readLine(); line != null; line = lines.readLine()) {
                rest.append(line).append('\n');
            }
            assertThat(server.waitFor()).as(rest.toString()).isNotZero();
            assertThat(rest).contains("counters of this process").contains("refused");
        } finally {
            server.destroyForcibly();
        }
    }
}
