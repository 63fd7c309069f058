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
}
