package org.rddp.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each program as a user runs it, through its {@code main}: what it prints says it did its job. */
class MainsTest {
    private final PrintStream original = System.out;
    private final Lines lines = new Lines();

    @BeforeEach
    void capture() {
        System.setOut(lines);
    }

    @AfterEach
    void restore() {
        System.setOut(original);
    }

    @Test
    void writeAndReadOverSctp() throws Exception {
        WriteAndRead.main(new String[] {"sctp"});

        assertThat(lines.next()).isEqualTo("Result[transport=sctp, written=4096, read=4096, completions=2, "
                + "verified=true]");
    }

    @Test
    void theEchoServerAndItsClientAsTwoProgramsOverMpa() throws Exception {
        CompletableFuture<Void> server = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                ExsEchoServer.main(new String[] {"mpa://127.0.0.1:0"});
                server.complete(null);
            } catch (Exception e) {
                server.completeExceptionally(e);
            }
        });
        String listening = lines.next();
        assertThat(listening).startsWith("ExsEchoServer: listening on /127.0.0.1:");
        String port = listening.substring(listening.lastIndexOf(':') + 1);

        ExsEchoClient.main(new String[] {"mpa://127.0.0.1:" + port, "12"});

        server.get(20, TimeUnit.SECONDS);
        assertThat(List.of(lines.next(), lines.next())).containsExactlyInAnyOrder(
                "ExsEchoClient: 12 of 12 echoed intact", "ExsEchoServer: echoed 12 messages; the client closed");
    }

    @Test
    void theEchoClientWithAServerOfItsOwnOverSctp() throws Exception {
        ExsEchoClient.main(new String[] {"sctp", "8"});

        assertThat(lines.next()).isEqualTo("ExsEchoClient: 8 of 8 echoed intact");
    }

    @Test
    void sctpPathsPrintsEachPathAndTheChoice() throws Exception {
        SctpPaths.main(new String[0]);

        assertThat(lines.next()).matches("SctpPaths: over \\S+, 1 path\\(s\\)");
        assertThat(lines.next()).matches("  to \\S*/127\\.0\\.0\\.1:\\d+: active, primary, RTO \\d+ ms");
        assertThat(lines.next()).matches("SctpPaths: primary path to \\S*/127\\.0\\.0\\.1:\\d+: (chosen|refused: .+)");
    }

    @Test
    void checkSessionOverMpaPassesEveryCase() throws Exception {
        CheckSession.main(new String[] {"mpa"});

        assertThat(lines.next()).matches("CheckSession: (\\d+) of \\1 cases passed");
    }

    /** Standard output whose {@code println} lines a test takes one by one, as they come; the rest is dropped. */
    private static final class Lines extends PrintStream {
        private final BlockingQueue<String> printed = new LinkedBlockingQueue<>();

        Lines() {
            super(OutputStream.nullOutputStream(), true);
        }

        @Override
        public void println(String line) {
            printed.add(line);
        }

        @Override
        public void println(Object line) {
            printed.add(String.valueOf(line));
        }

        /** The next line printed, waiting up to 20 s for it. */
        String next() throws InterruptedException {
            String line = printed.poll(20, TimeUnit.SECONDS);
            assertThat(line).as("a line printed within 20 s").isNotNull();
            return line;
        }
    }
}
