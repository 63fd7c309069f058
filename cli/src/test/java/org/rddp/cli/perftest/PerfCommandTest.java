package org.rddp.cli.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.rddp.cli.InProcess.Run;
import org.rddp.cli.InProcess;

/** The perftest-style commands, client against server in this process, over each transport. */
class PerfCommandTest {

    /** Runs {@code command} as server and as client (on loopback, a free port); returns {server, client}. */
    static Run[] pair(String command, List<String> serverArgs, List<String> clientArgs) throws Exception {
        return pair(command, serverArgs, command, clientArgs);
    }

    /** A server running {@code serverCommand} and a client running {@code clientCommand} against it. */
    static Run[] pair(String serverCommand, List<String> serverArgs, String clientCommand, List<String> clientArgs)
            throws Exception {
        String port = Integer.toString(InProcess.freePort());
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Run> server = CompletableFuture.supplyAsync(() -> InProcess.rddp(listening,
                Stream.of(List.of(serverCommand, "-B", "127.0.0.1", "-p", port), serverArgs).flatMap(List::stream)
                        .toArray(String[]::new)));
        listening.get(60, TimeUnit.SECONDS);
        Run client = InProcess.rddp(Stream.of(List.of(clientCommand, "127.0.0.1", "-p", port), clientArgs)
                .flatMap(List::stream).toArray(String[]::new));
        return new Run[] {server.get(120, TimeUnit.SECONDS), client};
    }

    private static void assertSucceeded(Run[] runs) {
        assertThat(runs[1].status()).as("client: " + runs[1].err() + runs[1].out()).isZero();
        assertThat(runs[0].status()).as("server: " + runs[0].err() + runs[0].out()).isZero();
    }

    /** The result rows a run printed: lines starting with the size. */
    private static List<String[]> rows(Run run) {
        return run.out().lines().filter(line -> line.matches(" \\d+ .*")).map(line -> line.trim().split("\\s+"))
                .toList();
    }

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({
        "write-bw, mpa, 65536, 300", "read-bw, mpa, 65536, 300", "send-bw, mpa, 65536, 300",
        "write-lat, mpa, 2, 300", "read-lat, mpa, 4096, 300", "send-lat, mpa, 100, 300",
        "write-bw, sctp, 65536, 300", "read-bw, sctp, 65536, 300", "send-bw, sctp, 65536, 300",
        "write-lat, sctp, 2, 300", "read-lat, sctp, 4096, 300", "send-lat, sctp, 100, 300"})
    void runsWithDataVerified(String command, String transport, int size, int iterations) throws Exception {
        List<String> args = List.of("-t", transport, "-s", Integer.toString(size), "-n", Integer.toString(iterations),
                "--verify");
        Run[] runs = pair(command, args, args);
        assertSucceeded(runs);
        boolean bandwidth = command.endsWith("-bw");
        assertThat(runs[1].out()).contains(bandwidth ? PerfReport.BANDWIDTH_HEADER : PerfReport.LATENCY_HEADER);
        List<String[]> client = rows(runs[1]);
        assertThat(client).hasSize(1);
        assertThat(client.getFirst()[0]).isEqualTo(Integer.toString(size));
        if (bandwidth) {
            assertThat(Long.parseLong(client.getFirst()[1])).isEqualTo(iterations);
            assertThat(Double.parseDouble(client.getFirst()[3])).isPositive(); // average MB/sec
        } else {
            assertThat(Long.parseLong(client.getFirst()[1])).isEqualTo(iterations);
            double min = Double.parseDouble(client.getFirst()[2]);
            double max = Double.parseDouble(client.getFirst()[3]);
            assertThat(min).isPositive().isLessThanOrEqualTo(max);
        }
        if (!command.equals("read-lat")) { // read-lat's server does not measure anything
            List<String[]> server = rows(runs[0]);
            assertThat(server).hasSize(1);
            assertThat(server.getFirst()[0]).isEqualTo(Integer.toString(size));
        }
        if (command.equals("write-bw") || command.equals("read-bw")) { // the server prints the client's numbers
            assertThat(rows(runs[0]).getFirst()).isEqualTo(client.getFirst());
        }
    }

    @Test
    void runsEverySizeWithAll() throws Exception {
        for (String command : List.of("write-bw", "send-bw", "write-lat")) {
            List<String> args = List.of("-a", "-n", "4", "--verify");
            Run[] runs = pair(command, args, args);
            assertSucceeded(runs);
            List<String[]> sizes = rows(runs[1]);
            assertThat(sizes).as(command).hasSize(23);
            assertThat(sizes.getFirst()[0]).isEqualTo("2");
            assertThat(sizes.getLast()[0]).isEqualTo(Integer.toString(1 << 23));
        }
    }

    @Test
    void sendsOverSeveralQueuePairsWithCreditsAndPrintsJson() throws Exception {
        Run[] runs = pair("send-bw", List.of("-q", "3", "-s", "1024", "-n", "3000", "--rx-depth", "32", "--verify"),
                List.of("-q", "3", "-s", "1024", "-n", "3000", "--rx-depth", "32", "--verify", "--json"));
        assertSucceeded(runs);
        JsonNode json = new ObjectMapper().readTree(runs[1].out());
        assertThat(json.get("test").asText()).isEqualTo("send-bw");
        assertThat(json.get("role").asText()).isEqualTo("client");
        assertThat(json.get("transport").asText()).isEqualTo("mpa");
        JsonNode result = json.get("results").get(0);
        assertThat(result.get("bytes").asInt()).isEqualTo(1024);
        assertThat(result.get("iterations").asLong()).isEqualTo(9000);
        assertThat(result.get("averageMbps").asDouble()).isPositive();
        assertThat(rows(runs[0]).getFirst()[1]).isEqualTo("9000"); // the server received every Send
    }

    /**
     * Issue 51: perftest's --reversed: the server sends, the client receives, checks and reports every Send; over MPA
     * the client asks for the peer-to-peer model, since a responder may not send first otherwise.
     */
    @ParameterizedTest(name = "over {0}")
    @CsvSource({"mpa", "sctp"})
    void sendsFromTheServerToTheClientReversed(String transport) throws Exception {
        List<String> args = List.of("-t", transport, "-s", "4096", "-n", "2000", "--rx-depth", "64", "--verify",
                "--reversed");
        Run[] runs = pair("send-bw", args, args);
        assertSucceeded(runs);
        assertThat(rows(runs[1]).getFirst()[1]).as("the client received every Send").isEqualTo("2000");
        if (transport.equals("mpa")) {
            assertThat(runs[1].out()).contains("peer-to-peer with WRITE RTR");
        }
        Run[] timed = pair("send-bw", List.of("-t", transport, "-s", "4096", "-D", "2", "--verify", "--reversed"),
                List.of("-t", transport, "-s", "4096", "-D", "2", "--verify", "--reversed"));
        assertSucceeded(timed);
        assertThat(Long.parseLong(rows(timed[1]).getFirst()[1])).isPositive();
    }

    /** Issue 51: --mptcp, over loopback's one path: the banner, each connection and its one subflow say so. */
    @Test
    void runsOverMultipathTcpAndSaysSo() throws Exception {
        List<String> args = List.of("-s", "65536", "-n", "500", "--verify", "--mptcp");
        Run[] runs = pair("write-bw", args, args);
        assertSucceeded(runs);
        assertThat(runs[1].out()).contains("Transport type : IW (MPTCP/MPA)", "[CRC, MPTCP]",
                "data connection 1 paths at the end: [/127.0.0.1:");
        assertThat(runs[0].out()).contains("[CRC, MPTCP]");
    }

    @Test
    void runsForADuration() throws Exception {
        Run[] runs = pair("write-bw", List.of("-D", "2", "-s", "4096"), List.of("-D", "2", "-s", "4096"));
        assertSucceeded(runs);
        assertThat(Long.parseLong(rows(runs[1]).getFirst()[1])).isPositive();
    }

    /**
     * Issue 36: perftest's --cq-mod and --post-list. Every message is counted (the unsignaled ones complete with the
     * next signaled one) and verified; with a duration, a run that ends with unsignaled requests outstanding sees them
     * done; Sends stop for the server's credits between lists.
     */
    @Test
    void signalsOneInCqModAndPostsListsAndCountsEveryMessage() throws Exception {
        for (String command : List.of("write-bw", "read-bw", "send-bw")) {
            List<String> args = List.of("-q", "2", "-s", "256", "-n", "1003", "--cq-mod", "7", "--post-list", "5",
                    "--rx-depth", "64", "--verify");
            Run[] runs = pair(command, args, args);
            assertSucceeded(runs);
            assertThat(rows(runs[1]).getFirst()[1]).as(command).isEqualTo("2006"); // 1,003 on each queue pair
        }
        List<String> duration = List.of("-t", "sctp", "-D", "2", "-s", "64", "--cq-mod", "100", "--post-list", "16");
        Run[] runs = pair("write-bw", duration, duration);
        assertSucceeded(runs);
        assertThat(Long.parseLong(rows(runs[1]).getFirst()[1])).isPositive();
        runs = pair("send-bw", List.of("-D", "2", "-s", "64"), List.of("-D", "2", "-s", "64", "--cq-mod", "33"));
        assertSucceeded(runs);
        assertThat(Long.parseLong(rows(runs[0]).getFirst()[1])).as("the server's Sends").isPositive();
    }

    @Test
    void differentSizesOnTheTwoSidesFailClearly() throws Exception {
        Run[] runs = pair("send-bw", List.of("-s", "1024", "-n", "100", "--timeout", "5"),
                List.of("-s", "2048", "-n", "100", "--timeout", "5"));
        assertThat(runs[0].status()).isEqualTo(1);
        assertThat(runs[0].err()).containsAnyOf("a Send of 2048 octets overflowed the receive posted for it",
                "sent a Terminate: Send of at least 2048 octets into a 1024-octet receive");
        assertThat(runs[1].status()).isEqualTo(1);
    }

    @Test
    void verifyingAgainstAPeerThatDoesNotFailsOnTheData() throws Exception {
        Run[] runs = pair("read-lat", List.of("-n", "10"), List.of("-n", "10", "--verify", "--timeout", "5"));
        assertThat(runs[1].status()).isEqualTo(1);
        assertThat(runs[1].err()).contains("data mismatch in RDMA Read 0 at offset 0")
                .contains("is the peer rddp with --verify?");
    }

    @Test
    void aClientWithoutServerSaysSo() throws Exception {
        Run run = InProcess.rddp("write-bw", "127.0.0.1", "-p", Integer.toString(InProcess.freePort()),
                "--setup-timeout", "2", "--timeout", "3");
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).contains("rddp write-bw: the control connection failed");
    }

    @ParameterizedTest(name = "over {0}")
    @CsvSource({"mpa", "sctp"})
    void sendsAtAnOfferedRateWithManyInFlightAndTimesEachRoundTrip(String transport) throws Exception {
        // the server's send queue (4) is shallower than the client's window (128): its answers wait for room
        Run[] runs = pair("send-lat", List.of("-t", transport, "-s", "512", "-n", "3000", "--tx-depth", "4",
                "--verify"), List.of("-t", transport, "-s", "512", "-n", "3000", "--rate", "50000", "--verify"));
        assertSucceeded(runs);
        assertThat(runs[1].out()).contains(" TX depth        : 128");
        List<String[]> client = rows(runs[1]);
        assertThat(client).hasSize(1);
        assertThat(Long.parseLong(client.getFirst()[1])).isEqualTo(3000);
        double min = Double.parseDouble(client.getFirst()[2]);
        double max = Double.parseDouble(client.getFirst()[3]);
        double typical = Double.parseDouble(client.getFirst()[4]);
        assertThat(min).isPositive().isLessThanOrEqualTo(typical);
        assertThat(typical).isLessThanOrEqualTo(max);
        assertThat(Long.parseLong(rows(runs[0]).getFirst()[1])).isEqualTo(3000); // the server answered every one
    }

    @ParameterizedTest(name = "over {0}")
    @CsvSource({"mpa", "sctp"})
    void writesAtAnOfferedRateEachToldByASendAndAnsweredInKind(String transport) throws Exception {
        // both sides write-lat --rate (the server's rate says only how to answer); its send queue (4: two Writes with
        // their Sends) is shallower than the client's window, and --verify checks each Write landed before its Send
        Run[] runs = pair("write-lat", List.of("-t", transport, "-s", "4096", "-n", "2000", "--tx-depth", "4",
                "--rate", "1", "--verify"), List.of("-t", transport, "-s", "4096", "-n", "2000", "--rate", "20000",
                "--verify"));
        assertSucceeded(runs);
        assertThat(runs[1].out()).contains(" TX depth        : 256");
        List<String[]> client = rows(runs[1]);
        assertThat(client).hasSize(1);
        assertThat(Long.parseLong(client.getFirst()[1])).isEqualTo(2000);
        assertThat(Double.parseDouble(client.getFirst()[2])).isPositive()
                .isLessThanOrEqualTo(Double.parseDouble(client.getFirst()[4]));
        assertThat(Long.parseLong(rows(runs[0]).getFirst()[1])).isEqualTo(2000); // the server answered every one
    }

    @Test
    void aWriteLoadAgainstASendServerIsToldWhy() throws Exception {
        Run[] runs = pair("send-lat", List.of("-s", "512", "-n", "100", "--timeout", "5"), "write-lat", List.of("-s",
                "512", "-n", "100", "--timeout", "5", "--rate", "1000"));
        assertThat(runs[0].status()).isEqualTo(1);
        assertThat(runs[0].err()).contains("received a Send of 0 octets, not 512: give both sides the same test");
    }

    @Test
    void usageErrorsAreRefused() {
        assertThat(InProcess.rddp("write-bw", "--rate", "10").err())
                .contains("an offered rate is for send-lat and write-lat");
        assertThat(InProcess.rddp("write-bw", "-s", "64", "-a").err()).contains("give -s or -a, not both");
        assertThat(InProcess.rddp("write-lat", "-D", "3").err()).contains("a duration is for bandwidth tests");
        assertThat(InProcess.rddp("read-lat", "-q", "2").err()).contains("latency tests run one queue pair");
        assertThat(InProcess.rddp("write-bw", "--reversed").err()).contains("--reversed is for send-bw");
        assertThat(InProcess.rddp("write-bw", "-t", "sctp", "--mptcp").err())
                .contains("--mptcp is for MPA's TCP (-t mpa), not for SCTP");
    }
}
