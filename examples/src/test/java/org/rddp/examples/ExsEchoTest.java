package org.rddp.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ExsEchoServer} and {@link ExsEchoClient} over each transport, in one process. */
class ExsEchoTest {
    private static final int MESSAGES = 60;

    @ParameterizedTest
    @ValueSource(strings = {"mpa", "sctp"})
    void everyMessageComesBackIntactAndTheServerCountsThemAll(String scheme) throws Exception {
        CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
        CompletableFuture<Integer> served = new CompletableFuture<>();
        Thread.ofVirtual().name("echo-server").start(() -> {
            try {
                served.complete(ExsEchoServer.serve(URI.create(scheme + "://127.0.0.1:0"),
                        where -> listening.complete((InetSocketAddress) where)));
            } catch (Exception e) {
                listening.completeExceptionally(e);
                served.completeExceptionally(e);
            }
        });
        int port = listening.get(10, TimeUnit.SECONDS).getPort();
        assertThat(port).as("the port the system chose").isPositive();

        int intact = ExsEchoClient.run(URI.create(scheme + "://127.0.0.1"),
                URI.create(scheme + "://127.0.0.1:" + port), MESSAGES);

        assertThat(intact).as("echoes that matched what was sent, octet for octet").isEqualTo(MESSAGES);
        assertThat(served.get(20, TimeUnit.SECONDS)).as("messages the server echoed before the client closed")
                .isEqualTo(MESSAGES);
    }
}
