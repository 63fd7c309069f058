package org.rddp.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The modules as users get them: the packaged {@code rddp} on the module path, as {@code ./rddp} runs it. Each module
 * exports only what users program against (the SCTP socket layer stays inside, the hand-driven peers go to the
 * session checks only), and the session checks, which reach across those boundaries, still run over both transports.
 */
class ModulePathTest {
    private static List<String> java(String... args) throws IOException {
        List<String> command = PackagedRddp.java();
        command.addAll(List.of(args));
        return command;
    }

    private static String run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }

    @Test
    void eachModuleExportsOnlyWhatUsersProgramAgainst() throws Exception {
        String sctp = run(java("--describe-module", "org.rddp.transport.sctp"));
        assertThat(sctp).contains("exports org.rddp.transport.sctp\n", "exports org.rddp.transport.sctp.usrsctp",
                "exports org.rddp.transport.sctp.kernel",
                "qualified exports org.rddp.transport.sctp.raw to org.rddp.check")
                .doesNotContain("exports org.rddp.transport.sctp.io");
        String mpa = run(java("--describe-module", "org.rddp.transport.mpa"));
        assertThat(mpa).contains("exports org.rddp.transport.mpa\n",
                "qualified exports org.rddp.transport.mpa.raw to org.rddp.check");
    }

    /** {@code rddp interop} against {@code rddp interop --serve}, both from the modules, over each transport. */
    @ParameterizedTest
    @CsvSource({"mpa, 16", "sctp, 19"})
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theSessionChecksRunFromTheModules(String transport, int cases) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        List<String> stack = transport.equals("sctp") ? List.of("-t", "sctp", "--sctp-stack", "usrsctp")
                : List.of("-t", "mpa");
        List<String> serve = java("-m", "org.rddp.cli/org.rddp.cli.Main", "interop", "--serve", "-B", "127.0.0.1",
                "-p", Integer.toString(port));
        serve.addAll(stack);
        Process server = new ProcessBuilder(serve).redirectErrorStream(true).start();
        try (var lines = server.inputReader(StandardCharsets.UTF_8)) {
            String line = lines.readLine();
            while (line != null && !line.contains("serving on")) {
                line = lines.readLine();
            }
            assertThat(line).as("the server started").isNotNull();
            List<String> check = java("-m", "org.rddp.cli/org.rddp.cli.Main", "interop", "127.0.0.1", "-p",
                    Integer.toString(port), "--wait", "3");
            check.addAll(stack);
            java.util.regex.Matcher udp = java.util.regex.Pattern.compile("--peer-udp-port (\\d+)").matcher(line);
            if (udp.find()) { // usrsctp over UDP in another process: its UDP port, as the server says
                check.addAll(List.of("--peer-udp-port", udp.group(1)));
            }
            assertThat(run(check)).contains("interop: " + cases + " cases, " + cases + " passed, 0 failed");
        } finally {
            server.destroyForcibly();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
