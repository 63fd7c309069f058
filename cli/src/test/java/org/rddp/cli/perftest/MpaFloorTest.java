package org.rddp.cli.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 36's RFC floor ({@link MpaFloor}): a ping-pong of messages cut into several FPDUs arrives whole; and what a
 * peer sends cannot make it keep more than its one staging buffer, allocated once and bounded by ULPDU's 16-bit
 * length: an FPDU whose payload exceeds the message is refused before anything is copied, as are a failed CRC, a
 * ULPDU shorter than a Send's header, and a peer that closes mid-FPDU.
 */
class MpaFloorTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private ServerSocketChannel server;
    private SocketChannel near;
    private SocketChannel far;

    @BeforeEach
    void connect() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        near = SocketChannel.open(server.getLocalAddress());
        far = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        far.close();
        near.close();
        server.close();
    }

    @Test
    void messagesOfSeveralFpdusMakeTheRoundTrip() throws Exception {
        CompletableFuture<Void> echoed = CompletableFuture.runAsync(() -> {
            try {
                MpaFloor.echo(far, 1000, 100_000, 20, TIMEOUT);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        PerfResult.Latency latency = MpaFloor.ping(near, 1000, 100_000, 20, TIMEOUT);
        echoed.get(30, TimeUnit.SECONDS);
        assertThat(latency.iterations()).isEqualTo(20);
        assertThat(latency.minUsec()).isPositive();
    }

    @Test
    void anFpduLongerThanTheMessageIsRefusedBeforeAnyCopy() throws Exception {
        far.write(fpdu(60_000, true));
        ByteBuffer target = ByteBuffer.allocateDirect(64);
        try (MpaFloor floor = new MpaFloor(near, 1000, TIMEOUT)) {
            assertThatThrownBy(() -> floor.receive(target, "a message")).isInstanceOf(IOException.class)
                    .hasMessageContaining("longer than the target");
        }
        assertThat(target.position()).as("nothing copied").isZero();
    }

    @Test
    void aFailedCrcAShortUlpduAndAPeerGoneMidFpduAreRefused() throws Exception {
        ByteBuffer target = ByteBuffer.allocateDirect(64);
        far.write(fpdu(64, false));
        try (MpaFloor floor = new MpaFloor(near, 1000, TIMEOUT)) {
            assertThatThrownBy(() -> floor.receive(target, "a message")).hasMessageContaining("CRC");
        }
        close();
        connect();
        far.write(ByteBuffer.wrap(new byte[] {0, 4, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0}));
        try (MpaFloor floor = new MpaFloor(near, 1000, TIMEOUT)) {
            assertThatThrownBy(() -> floor.receive(target.clear(), "a message")).hasMessageContaining("not a Send");
        }
        close();
        connect();
        far.write(fpdu(64, true).limit(40));
        far.close();
        try (MpaFloor floor = new MpaFloor(near, 1000, TIMEOUT)) {
            assertThatThrownBy(() -> floor.receive(target.clear(), "a message")).hasMessageContaining("closed");
        }
        assertThat(target.position()).as("nothing copied").isZero();
    }

    /** An FPDU carrying {@code payload} octets of a Send, its CRC right or not. */
    private static ByteBuffer fpdu(int payload, boolean goodCrc) {
        int ulpdu = MpaFloor.SEND_HEADER + payload;
        int pad = -(2 + ulpdu) & 3;
        ByteBuffer fpdu = ByteBuffer.allocate(2 + ulpdu + pad + 4);
        fpdu.putShort((short) ulpdu).put((byte) 0x41).put((byte) 0x43);
        fpdu.position(2 + ulpdu + pad);
        CRC32C crc = new CRC32C();
        crc.update(fpdu.array(), 0, 2 + ulpdu + pad);
        fpdu.putInt((int) crc.getValue() ^ (goodCrc ? 0 : 1));
        return fpdu.flip();
    }
}
