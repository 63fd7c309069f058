package org.rddp.cli.ping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.cli.InProcess.freePort;
import static org.rddp.cli.InProcess.rddp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.rddp.cli.InProcess.Run;

/** {@code rddp ping} client against {@code rddp ping} server, both in this process, over each transport. */
class PingCommandTest {

    /** Starts a server, waits until it listens, runs the client; returns the server's run and the client's. */
    static Run[] pair(List<String> common, List<String> serverArgs, List<String> clientArgs) throws Exception {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Run> server = CompletableFuture.supplyAsync(() -> rddp(listening, Stream.of(
                List.of("ping", "-s"), common, serverArgs).flatMap(List::stream).toArray(String[]::new)));
        listening.get(60, TimeUnit.SECONDS);
        Run client = rddp(Stream.of(List.of("ping", "-c"), common, clientArgs).flatMap(List::stream)
                .toArray(String[]::new));
        return new Run[] {server.get(60, TimeUnit.SECONDS), client};
    }

    @Test
    void pingsOverMpaWithCrcVerifiedBothWays() throws Exception {
        String port = Integer.toString(freePort());
        Run[] runs = pair(List.of("-a", "127.0.0.1", "-p", port, "-S", "4000", "-V"), List.of(),
                List.of("-C", "20", "-v"));
        assertThat(runs[1].status()).as(runs[1].err()).isZero();
        assertThat(runs[1].out()).contains("CRC").contains("ping data: rdma-ping-19: T")
                .contains("client: 20 pings of 4000 octets, data verified");
        assertThat(runs[0].status()).as(runs[0].err()).isZero();
        assertThat(runs[0].out()).contains("server: client disconnected after 20 pings, data verified");
    }

    @Test
    void pingsOverIpv6OnBothTransportsWithTheSctpParametersGiven() throws Exception {
        for (List<String> transport : List.of(List.of("-t", "mpa"), List.of("-t", "sctp", "--sctp-rto",
                "500,100,3000", "--sctp-retrans", "12,3,0", "--sctp-hb-interval", "2000"))) {
            String port = Integer.toString(freePort());
            List<String> common = new ArrayList<>(List.of("-a", "::1", "-p", port, "-V"));
            common.addAll(transport);
            Run[] runs = pair(common, List.of(), List.of("-C", "5"));
            assertThat(runs[1].status()).as(transport + ": " + runs[1].err()).isZero();
            assertThat(runs[1].out()).contains("client: 5 pings of 64 octets, data verified");
            assertThat(runs[0].out()).contains("after 5 pings, data verified");
        }
    }

    @Test
    void sctpParametersOutOfOrderAreAClearError() throws Exception {
        Run run = rddp("ping", "-c", "-a", "127.0.0.1", "-p", Integer.toString(freePort()), "-t", "sctp",
                "--sctp-retrans", "10,4");
        assertThat(run.status()).isNotZero();
        assertThat(run.err()).contains("--sctp-retrans takes");
    }

    @Test
    void pingsOverMpaPeerToPeerWithoutCrc() throws Exception {
        for (String rtr : List.of("send", "write", "read")) {
            String port = Integer.toString(freePort());
            Run[] runs = pair(List.of("-a", "127.0.0.1", "-p", port, "-V", "--no-crc"), List.of(),
                    List.of("-C", "3", "--p2p", rtr));
            assertThat(runs[1].status()).as(rtr + ": " + runs[1].err()).isZero();
            assertThat(runs[1].out()).contains("no CRC").contains("client: 3 pings of 64 octets, data verified");
            assertThat(runs[0].out()).contains("after 3 pings");
        }
    }

    @Test
    void pingsOverMpaRevision1() throws Exception {
        String port = Integer.toString(freePort());
        Run[] runs = pair(List.of("-a", "127.0.0.1", "-p", port, "-V", "--mpa-rev", "1"), List.of(),
                List.of("-C", "2"));
        assertThat(runs[1].status()).as(runs[1].err()).isZero();
        assertThat(runs[0].out()).contains("after 2 pings, data verified");
    }

    @Test
    void pingsOverSctp() throws Exception {
        String port = Integer.toString(freePort());
        Run[] runs = pair(List.of("-t", "sctp", "--sctp-stack", "usrsctp", "-a", "127.0.0.1", "-p", port, "-V",
                "-S", "65535", "--trace-sessions"), List.of(), List.of("-C", "10"));
        assertThat(runs[1].status()).as(runs[1].err()).isZero();
        assertThat(runs[1].out()).contains("client: 10 pings of 65535 octets, data verified")
                .containsPattern("connected to 127\\.0\\.0\\.1:\\d+ over sctp-\\d+ stream \\d+, IRD");
        assertThat(runs[0].out()).contains("after 10 pings, data verified");
        // the session ends with Session Terminates (RFC 5043 §6.2), not only the association's SHUTDOWN or ABORT
        assertThat(runs[1].err()).containsPattern("sctp-\\d+ stream \\d+ sent EnhancedInitiate")
                .containsPattern("received EnhancedAccept").containsPattern("stream \\d+ sent Terminate")
                .containsPattern("stream \\d+ received Terminate");
        assertThat(runs[0].err()).containsPattern("received Terminate");
    }

    @Test
    void aRevision1ServerClosesOnAnEnhancedRequestAndSaysWhy() throws Exception {
        String port = Integer.toString(freePort());
        Run[] runs = pair(List.of("-a", "127.0.0.1", "-p", port, "--setup-timeout", "3"), List.of("--mpa-rev", "1"),
                List.of("-C", "1"));
        assertThat(runs[1].status()).isOne();
        assertThat(runs[1].err()).startsWith("rddp ping: connect error:");
        assertThat(runs[0].status()).isOne();
        assertThat(runs[0].err()).contains("refused the client's connection");
    }

    @Test
    void aClientWhoseOnlyRtrTheServerCannotTakeGivesUpWithNoMatchingRtr() throws Exception {
        String port = Integer.toString(freePort());
        Run[] runs = pair(List.of("-a", "127.0.0.1", "-p", port), List.of("--rtr-types", "write", "--timeout", "5"),
                List.of("--p2p", "send", "-C", "1"));
        assertThat(runs[1].status()).isOne();
        assertThat(runs[1].err()).contains("connect error: no matching RTR");
        assertThat(runs[0].status()).isOne();
    }

    @Test
    void aServerWithASmallerBufferRefusesALargerPingClearly() throws Exception {
        String port = Integer.toString(freePort());
        Run[] runs = pair(List.of("-a", "127.0.0.1", "-p", port), List.of("-S", "64"), List.of("-S", "128", "-C",
                "1", "--timeout", "3"));
        assertThat(runs[0].status()).isOne();
        assertThat(runs[0].err()).contains("the client advertises 128 octets, more than this server's 64");
        assertThat(runs[1].status()).isOne();
    }

    @Test
    void badArgumentsAreUsageErrors() {
        Run neither = rddp("ping", "-C", "1");
        assertThat(neither.status()).isEqualTo(2);
        assertThat(neither.err()).contains("Missing required argument");
        Run tooSmall = rddp("ping", "-c", "-S", "10");
        assertThat(tooSmall.status()).isOne();
        assertThat(tooSmall.err()).contains("ping size 10 outside rping's 26..65535");
    }

    @Test
    void rpingsDataIsReproducedExactly() {
        // rping.c: "rdma-ping-%d: " and letters from 65 + ping (mod 58) on, cycling 65..122, last octet zero
        byte[] data = Ping.data(0, 30);
        assertThat(new String(data, 0, 29, StandardCharsets.US_ASCII)).isEqualTo("rdma-ping-0: ABCDEFGHIJKLMNOP");
        assertThat(data[29]).isZero();
        List<String> wraps = new ArrayList<>();
        for (int ping : new int[] {57, 58}) {
            wraps.add(new String(Ping.data(ping, 18), 0, 17, StandardCharsets.US_ASCII));
        }
        assertThat(wraps).containsExactly("rdma-ping-57: zAB", "rdma-ping-58: ABC");
    }
}
