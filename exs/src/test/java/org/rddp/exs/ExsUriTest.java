package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.loop.Progress;

/** Transports chosen by URI, and the README's ten-line example, over each installed transport. */
class ExsUriTest {

    /** Over IPv4 and, with the address in brackets as URIs write it ({@code sctp://[::1]:7000}), over IPv6. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"mpa, 127.0.0.1", "sctp, 127.0.0.1", "exs, 127.0.0.1",
        "mpa, [::1]", "sctp, [::1]"})
    void theReadmeExample(String scheme, String host) throws Exception {
        URI address = URI.create(scheme + "://" + host + ":0"); // the system picks a free port
        try (Exs server = Exs.open(URI.create(scheme + "://" + host));
                Exs client = Exs.open(URI.create(scheme + "://" + host));
                ExsQueue serverQueue = server.createQueue(ExsQueue.Driver.THREAD);
                ExsQueue clientQueue = client.createQueue(ExsQueue.Driver.THREAD)) {
            // the README's example, a server and a client in one place
            ExsSocket listening = server.socket(serverQueue);
            listening.bind(address);
            listening.listen(8);
            assertThat(((java.net.InetSocketAddress) listening.localAddress()).getPort()).as("the port chosen")
                    .isPositive();
            var accepted = listening.acceptAsync();
            ExsSocket socket = client.socket(clientQueue);
            socket.connectAsync(listening.localAddress()).get(10, TimeUnit.SECONDS);
            ExsSocket peer = accepted.get(10, TimeUnit.SECONDS).socket();
            ExsMemory message = client.register(Arena.ofShared().allocateFrom("hello over " + scheme));
            ExsMemory buffer = server.register(Arena.ofShared().allocate(64));
            var received = peer.recvAsync(buffer, 0, 64);
            socket.sendAsync(message, 0, (int) message.length()).get(10, TimeUnit.SECONDS);
            long length = received.get(10, TimeUnit.SECONDS).length();
            assertThat(new String(buffer.segment().asSlice(0, length - 1).toArray(java.lang.foreign.ValueLayout
                    .JAVA_BYTE), StandardCharsets.UTF_8)).isEqualTo("hello over " + scheme);
            assertThat(server.scheme()).isEqualTo(scheme.equals("exs") ? Exs.defaultScheme() : scheme);
        }
    }

    /**
     * Each end opened with {@link Progress#manual()} on a thread of its own, which drives its transport as it waits
     * on its queue: 200 ping-pongs of changing data, normal and immediate, and clear errors for a thread that may
     * not wait there and for a queue with a thread of its own.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mpa", "sctp"})
    void eachEndDrivenByTheThreadThatUsesIt(String scheme) throws Exception {
        URI address = URI.create(scheme + "://127.0.0.1:0"); // the system picks a free port
        Duration wait = Duration.ofSeconds(10);
        int rounds = 200;
        try (Exs server = Exs.open(URI.create(scheme + "://127.0.0.1"), Progress.manual())) {
            ExsQueue serverQueue = server.createQueue();
            assertThatThrownBy(() -> server.createQueue(ExsQueue.Driver.THREAD))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Progress.manual()");
            ExsSocket listening = server.socket(serverQueue);
            listening.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 64);
            listening.bind(address);
            listening.listen(1);
            var accepted = listening.acceptAsync();
            java.net.SocketAddress bound = listening.localAddress();
            CompletableFuture<Void> echoed = new CompletableFuture<>();
            Thread.ofPlatform().name("manual-client").start(() -> {
                try (Exs client = Exs.open(URI.create(scheme + "://127.0.0.1"), Progress.manual())) {
                    ExsQueue queue = client.createQueue();
                    ExsSocket socket = client.socket(queue);
                    queue.await(socket.connectAsync(bound), wait);
                    ExsMemory memory = client.register(Arena.ofShared().allocate(4096));
                    for (int i = 0; i < rounds; i++) {
                        int length = (int) queue.await(socket.recvAsync(memory, 0, 4096), wait).length();
                        queue.await(socket.sendAsync(memory, 0, length), wait);
                    }
                    echoed.complete(null);
                } catch (Exception | AssertionError e) {
                    echoed.completeExceptionally(e);
                }
            });
            ExsSocket peer = serverQueue.await(accepted, wait).socket();
            ExsMemory out = server.register(Arena.ofShared().allocate(4096));
            ExsMemory in = server.register(Arena.ofShared().allocate(4096));
            for (int i = 0; i < rounds; i++) {
                int length = i % 2 == 0 ? 1 + i % 64 : 1000 + i; // immediate, then normal
                out.segment().asSlice(0, length).fill((byte) i);
                var reply = peer.recvAsync(in, 0, 4096);
                serverQueue.await(peer.sendAsync(out, 0, length), wait);
                assertThat(serverQueue.await(reply, wait).length()).isEqualTo(length);
                assertThat(in.segment().asSlice(0, length).mismatch(out.segment().asSlice(0, length)))
                        .as("round %d", i).isEqualTo(-1);
            }
            echoed.get(10, TimeUnit.SECONDS);
            CompletableFuture<Throwable> elsewhere = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    serverQueue.dequeue(new ExsEvent[1], 0, Duration.ZERO);
                    elsewhere.complete(null);
                } catch (IllegalStateException | InterruptedException e) {
                    elsewhere.complete(e);
                }
            });
            assertThat(elsewhere.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("driven by " + Thread.currentThread().getName());
        }
    }

    @Test
    void thisMachineHasSctpAndAUriMustNameTheTransportItIsUsedWith() throws Exception {
        assertThat(Exs.defaultScheme()).as("usrsctp's library is installed here").isEqualTo("sctp");
        try (Exs exs = Exs.open(URI.create("sctp://127.0.0.1"))) {
            ExsSocket socket = exs.socket(exs.createQueue());
            assertThatThrownBy(() -> socket.connect(URI.create("mpa://127.0.0.1:7000"), null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("runs over sctp");
            assertThatThrownBy(() -> socket.connect(URI.create("sctp://127.0.0.1"), null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no host and port");
        }
        assertThatThrownBy(() -> Exs.open(URI.create("tcp://127.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no transport 'tcp'")
                .hasMessageContaining("mpa").hasMessageContaining("sctp");
    }
}
