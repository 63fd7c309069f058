package org.rddp.cli.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The raw baselines' protocol: what the TCP sender's gathered writes put on the wire. */
class BaselinesTest {

    /**
     * However the messages are gathered (a last write shorter than the others, one message per write when a message
     * fills a write, fewer messages than a write holds), the sink gets exactly the octets of every message and
     * nothing more.
     */
    @ParameterizedTest
    @CsvSource({"1000, 300, 128", "64, 1000, 128", "200000, 5, 128", "4096, 7, 128", "1024, 1000, 1"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theTcpSenderWritesEveryMessageOnceWhateverItGathers(int size, long iterations, int outstanding)
            throws Exception {
        try (ServerSocketChannel listening = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = Baselines.noDelay(SocketChannel.open(listening.getLocalAddress()));
                SocketChannel server = listening.accept()) {
            long total = (long) size * iterations;
            CompletableFuture<Void> sunk = CompletableFuture.runAsync(() -> {
                try {
                    Baselines.tcpSink(server, total);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            PerfResult.Bandwidth result = Baselines.tcpSend(client, size, iterations, outstanding);
            sunk.get(30, TimeUnit.SECONDS);
            assertThat(result.bytes()).isEqualTo(size);
            assertThat(result.iterations()).isEqualTo(iterations);
            client.shutdownOutput(); // what the sink did not read would now come before the end of the stream
            ByteBuffer rest = ByteBuffer.allocate(1);
            assertThat(server.read(rest)).as("octets past the last message").isEqualTo(-1);
        }
    }

    /** Writes gather up to 128 KiB, never more messages than are outstanding, and at least one message. */
    @Test
    void aWriteGathersUpToIperfsBlockAndNoMoreThanIsOutstanding() {
        assertThat(Baselines.burst(64, 128)).isEqualTo(128);
        assertThat(Baselines.burst(4096, 128)).isEqualTo(32);
        assertThat(Baselines.burst(65536, 128)).isEqualTo(2);
        assertThat(Baselines.burst(1 << 20, 128)).isEqualTo(1);
        assertThat(Baselines.burst(1024, 8)).isEqualTo(8);
    }

    /** An SCTP burst bundles every message but its last, and the send's last message ends one too. */
    @Test
    void anSctpBurstBundlesAllButItsLastMessage() {
        assertThat(java.util.stream.LongStream.range(0, 8).mapToObj(m -> Baselines.bundles(4, m, m == 7)))
                .containsExactly(true, true, true, false, true, true, true, false);
        assertThat(Baselines.bundles(4, 1, true)).as("the send's last message").isFalse();
        assertThat(Baselines.bundles(1, 0, false)).as("bursts of one").isFalse();
    }
}
