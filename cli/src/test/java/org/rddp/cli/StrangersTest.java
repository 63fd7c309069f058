package org.rddp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.rddp.cli.InProcess.Run;

/**
 * A server waiting for its client is not ended by strangers (issue 16 item 3): a connection reset at once, one that
 * sends what is not MPA, one that stays silent past the setup timeout. Each is noted; then the real client is served.
 */
class StrangersTest {
    private static final int PORT_SCAN_TIMEOUT_MS = 60_000;

    /** Starts {@code server}, lets the strangers in one after another, then runs {@code client}: {server, client}. */
    private static Run[] afterStrangers(List<String> server, List<String> client) throws Exception {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Run> served = CompletableFuture.supplyAsync(() -> InProcess.rddp(listening,
                server.toArray(String[]::new)));
        listening.get(60, TimeUnit.SECONDS);
        int port = Integer.parseInt(server.get(server.indexOf("-p") + 1));
        resetAtOnce(port);
        assertThat(closedByServer(port, "GET / HTTP/1.1\r\nHost: rddp.example\r\n\r\n"))
                .as("not MPA: the server closes").isTrue();
        assertThat(closedByServer(port, "")).as("silent past the setup timeout: the server closes").isTrue();
        assertThat(served).as("the server still waits").isNotDone();
        Run ran = InProcess.rddp(client.toArray(String[]::new));
        return new Run[] {served.get(60, TimeUnit.SECONDS), ran};
    }

    /** Connects and resets the connection (SO_LINGER 0). */
    private static void resetAtOnce(int port) throws Exception {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /** Connects, sends {@code what}, and reads until the server closes; true when it did. */
    private static boolean closedByServer(int port, String what) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(PORT_SCAN_TIMEOUT_MS); // a bound on a broken server, not a synchronisation
            OutputStream out = socket.getOutputStream();
            out.write(what.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            try {
                while (in.read() >= 0) {
                    // whatever it says, it must end by closing
                }
            } catch (java.net.SocketException reset) {
                return true; // closed with a reset: also closed
            }
            return true;
        }
    }

    @Test
    void aPingServerServesItsClientAfterStrangers() throws Exception {
        String port = Integer.toString(InProcess.freePort());
        List<String> common = List.of("-a", "127.0.0.1", "-p", port, "--setup-timeout", "1");
        Run[] runs = afterStrangers(Stream.concat(Stream.of("ping", "-s", "-V", "--stats"), common.stream()).toList(),
                Stream.concat(Stream.of("ping", "-c"), Stream.concat(common.stream(), Stream.of("-C", "3", "-V")))
                        .toList());
        assertThat(runs[1].status()).as(runs[1].err()).isZero();
        assertThat(runs[0].status()).as(runs[0].err()).isZero();
        assertThat(runs[0].out()).contains("server: client disconnected after 3 pings, data verified");
        assertThat(runs[0].err()).contains("the peer is not speaking MPA").contains("no MPA Request within")
                .contains("still waiting for the client");
        assertThat(runs[0].err()).as("--stats: the strangers counted").contains("rddp: counters of this process:")
                .containsPattern("connections refused +[1-9]").containsPattern("malformed setups +[1-9]")
                .containsPattern("Terminates sent +\\d");
    }

    @Test
    void aWriteBandwidthServerServesItsClientAfterStrangers() throws Exception {
        String port = Integer.toString(InProcess.freePort());
        Run[] runs = afterStrangers(List.of("write-bw", "-B", "127.0.0.1", "-p", port, "--setup-timeout", "1",
                "-s", "4096", "-n", "100"), List.of("write-bw", "127.0.0.1", "-p", port, "-s", "4096", "-n", "100"));
        assertThat(runs[1].status()).as(runs[1].err() + runs[1].out()).isZero();
        assertThat(runs[0].status()).as(runs[0].err() + runs[0].out()).isZero();
        assertThat(runs[0].out()).contains(" 4096 ");
        assertThat(runs[0].err()).contains("the peer is not speaking MPA").contains("no MPA Request within");
    }
}
