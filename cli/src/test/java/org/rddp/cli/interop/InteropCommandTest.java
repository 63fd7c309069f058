package org.rddp.cli.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.cli.InProcess.freePort;
import static org.rddp.cli.InProcess.rddp;
import static org.rddp.cli.InProcess.rddpUntil;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.rddp.check.MpaResponderChecks;
import org.rddp.check.SctpResponderChecks;
import org.rddp.cli.InProcess.Run;
import org.rddp.cli.perftest.PerfReport;

/** {@code rddp interop} against this stack's own responder ({@code --serve}) and initiator ({@code ping -c}). */
class InteropCommandTest {

    /** Runs the initiator checks against {@code rddp interop --serve}, which is interrupted afterwards. */
    private static Run againstOurServer(List<String> transport, String... checker) throws Exception {
        String port = Integer.toString(freePort());
        CompletableFuture<Void> serving = new CompletableFuture<>();
        String[] serve = Stream.concat(Stream.of("interop", "--serve", "-B", "127.0.0.1", "-p", port),
                transport.stream()).toArray(String[]::new);
        Thread server = Thread.ofPlatform().daemon().start(() -> rddpUntil(serving, "interop: serving on", serve));
        try {
            serving.get(60, TimeUnit.SECONDS);
            return rddp(Stream.of(List.of("interop", "127.0.0.1", "-p", port, "--wait", "3"), transport,
                    List.of(checker)).flatMap(List::stream).toArray(String[]::new));
        } finally {
            server.interrupt();
            server.join(10_000);
        }
    }

    @Test
    void ourMpaResponderPassesTheMpaMatrix() throws Exception {
        Run run = againstOurServer(List.of("-t", "mpa"));
        assertThat(run.status()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("this side the initiator").contains("pass p2p-read")
                .contains("observed: an FPDU: RDMAP Terminate, layer 0x2 type 0x0 code 0x02 (MPA CRC Error)")
                .contains("interop: 16 cases, 16 passed, 0 failed, 0 not applicable");
    }

    @Test
    void ourSctpPassiveSidePassesTheSctpMatrixAsJson() throws Exception {
        Run run = againstOurServer(List.of("-t", "sctp", "--sctp-stack", "usrsctp"), "--json");
        assertThat(run.status()).as(run.out() + run.err()).isZero();
        JsonNode document = PerfReport.JSON.readTree(run.out());
        assertThat(document.get("transport").asText()).isEqualTo("sctp");
        assertThat(document.get("cases")).hasSize(19).allSatisfy(node -> assertThat(node.get("outcome").asText())
                .as(node.toString()).isEqualTo("PASS"));
        assertThat(document.get("cases").get(1).get("observed").asText()).isEqualTo("0x00000001");
    }

    /** Runs the responder checks, with {@code rddp ping -c} as the peer's initiator once per case. */
    private static Run[] againstOurClient(List<String> transport, int cases) throws Exception {
        String port = Integer.toString(freePort());
        CompletableFuture<Void> listening = new CompletableFuture<>();
        String[] respond = Stream.concat(Stream.of("interop", "--respond", "-B", "127.0.0.1", "-p", port, "--wait",
                "3", "--connect-wait", "30"), transport.stream()).toArray(String[]::new);
        CompletableFuture<Run> checker = CompletableFuture.supplyAsync(() -> rddpUntil(listening,
                "interop: listening on", respond));
        listening.get(60, TimeUnit.SECONDS);
        Run[] runs = new Run[cases + 1];
        for (int i = 0; i < cases; i++) {
            runs[i + 1] = rddp(Stream.concat(Stream.of("ping", "-c", "-a", "127.0.0.1", "-p", port, "-C", "1",
                    "--timeout", "5"), transport.stream()).toArray(String[]::new));
        }
        runs[0] = checker.get(60, TimeUnit.SECONDS);
        return runs;
    }

    @Test
    void ourMpaInitiatorPassesTheResponderMatrix() throws Exception {
        Run[] runs = againstOurClient(List.of("-t", "mpa", "--p2p", "write"), MpaResponderChecks.CASES);
        assertThat(runs[0].status()).as(runs[0].out() + runs[0].err()).isZero();
        assertThat(runs[0].out()).contains("this side the responder")
                .contains("code 0x06 (Insufficient IRD resources), then closed the connection")
                .contains("code 0x07 (No matching RTR option), then closed the connection")
                .contains("interop: 6 cases, 6 passed, 0 failed, 0 not applicable");
        assertThat(runs[2].status()).as("the rejected ping").isNotZero();
        assertThat(runs[2].err()).contains("rejected");
    }

    @Test
    void ourSctpInitiatorPassesTheResponderMatrix() throws Exception {
        Run[] runs = againstOurClient(List.of("-t", "sctp", "--sctp-stack", "usrsctp"), SctpResponderChecks.CASES);
        assertThat(runs[0].status()).as(runs[0].out() + runs[0].err()).isZero();
        assertThat(runs[0].out()).contains("then sid").contains("Insufficient IRD resources")
                .contains("interop: 5 cases, 5 passed, 0 failed, 0 not applicable");
    }

    @Test
    void withoutPeerOrRoleItSaysWhatToGive() {
        Run run = rddp("interop");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("give the PEER to check, or --respond, or --serve");
    }
}
