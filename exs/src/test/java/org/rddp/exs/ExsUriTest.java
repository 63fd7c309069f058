package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Transports chosen by URI, and the README's ten-line example, over each installed transport. */
class ExsUriTest {

    @ParameterizedTest
    @ValueSource(strings = {"mpa", "sctp", "exs"})
    void theReadmeExample(String scheme) throws Exception {
        int port = 30_000 + ThreadLocalRandom.current().nextInt(5000);
        URI address = URI.create(scheme + "://127.0.0.1:" + port);
        try (Exs server = Exs.open(URI.create(scheme + "://127.0.0.1"));
                Exs client = Exs.open(URI.create(scheme + "://127.0.0.1"));
                ExsQueue serverQueue = server.createQueue(ExsQueue.Driver.THREAD);
                ExsQueue clientQueue = client.createQueue(ExsQueue.Driver.THREAD)) {
            // the README's example, a server and a client in one place
            ExsSocket listening = server.socket(serverQueue);
            listening.bind(address);
            listening.listen(8);
            var accepted = listening.acceptAsync();
            ExsSocket socket = client.socket(clientQueue);
            socket.connectAsync(address).get(10, TimeUnit.SECONDS);
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
