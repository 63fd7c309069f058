package org.rddp.transport.sctp.usrsctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;

/**
 * The handshake under loss: the client's packets pass through a UDP relay that drops its first two COOKIE ECHOs.
 * With the potentially-failed state on during the handshake, usrsctp's first T1-cookie timeout sent a HEARTBEAT
 * beside the retransmitted COOKIE ECHO; the server, which never saw a COOKIE ECHO, has no association for it and
 * answers with an ABORT (RFC 9260 §8.4), so the connect failed. Now the state is off until the association is up:
 * the third COOKIE ECHO goes through and the connect succeeds, with no HEARTBEAT sent before it.
 */
class HandshakeLossTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int COOKIE_ECHO = 10;
    private static final int HEARTBEAT = 4;

    @Test
    void aConnectWhoseFirstCookieEchoesAreLostStillSucceedsAndSendsNoHeartbeatBeforeIt() throws Exception {
        SctpStack server = UsrsctpStack.udp();
        try (SctpStack.Listening listening = server.listen(new InetSocketAddress(LOOPBACK, 0), 8,
                DdpSctp.ADAPTATION_INDICATION);
                Relay relay = new Relay(new InetSocketAddress(LOOPBACK,
                        Links.listeningUdpPort(listening.address().getPort())), 2)) {
            CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
            listening.start(accepted::complete);
            SctpStack client = UsrsctpStack.udp(relay.port());
            try (SctpSocket connected = client.connect(new InetSocketAddress(LOOPBACK, 0), listening.address(), 8,
                    DdpSctp.ADAPTATION_INDICATION);
                    SctpSocket peer = accepted.get(10, TimeUnit.SECONDS)) {
                assertThat(connected.streams()).isEqualTo(8);
                assertThat(peer.streams()).isEqualTo(8);
            }
            assertThat(relay.cookieEchoesDropped.get()).as("COOKIE ECHOs the relay dropped").isEqualTo(2);
            assertThat(relay.heartbeatsBeforeTheCookieEcho.get()).as("HEARTBEATs sent before the COOKIE ECHO passed")
                    .isZero();
        }
    }

    /**
     * Carries SCTP over UDP between a client and {@code server}: it drops the first {@code drops} packets with a
     * COOKIE ECHO from the client and counts the HEARTBEATs the client sends before a COOKIE ECHO passed.
     */
    private static final class Relay implements AutoCloseable {
        private final DatagramChannel facingClient = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
        private final DatagramChannel facingServer = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
        private final AtomicReference<SocketAddress> client = new AtomicReference<>();
        private final AtomicInteger cookieEchoesDropped = new AtomicInteger();
        private final AtomicInteger heartbeatsBeforeTheCookieEcho = new AtomicInteger();
        private final Thread up;
        private final Thread down;

        Relay(InetSocketAddress server, int drops) throws IOException {
            up = Thread.ofVirtual().start(() -> carry(facingClient, facingServer, server, drops));
            down = Thread.ofVirtual().start(() -> carry(facingServer, facingClient, null, 0));
        }

        int port() throws IOException {
            return ((InetSocketAddress) facingClient.getLocalAddress()).getPort();
        }

        /** Forwards what {@code from} receives through {@code to}: to {@code server}, or (null) back to the client. */
        private void carry(DatagramChannel from, DatagramChannel to, InetSocketAddress server, int drops) {
            ByteBuffer packet = ByteBuffer.allocate(1 << 16);
            boolean cookiePassed = false;
            try {
                while (true) {
                    packet.clear();
                    SocketAddress sender = from.receive(packet);
                    packet.flip();
                    if (server != null) {
                        client.set(sender);
                        if (carries(packet, COOKIE_ECHO)) {
                            if (cookieEchoesDropped.get() < drops) {
                                cookieEchoesDropped.incrementAndGet();
                                continue;
                            }
                            cookiePassed = true;
                        }
                        if (!cookiePassed && carries(packet, HEARTBEAT)) {
                            heartbeatsBeforeTheCookieEcho.incrementAndGet();
                        }
                    }
                    SocketAddress target = server != null ? server : client.get();
                    if (target != null) {
                        to.send(packet, target);
                    }
                }
            } catch (ClosedChannelException e) {
                // closed: the test is over
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /** Whether the SCTP packet carries a chunk of {@code type} (its chunks follow the 12-octet common header). */
        private static boolean carries(ByteBuffer packet, int type) {
            int at = 12;
            while (at + 4 <= packet.limit()) {
                if ((packet.get(at) & 0xFF) == type) {
                    return true;
                }
                int length = packet.getShort(at + 2) & 0xFFFF;
                if (length < 4) {
                    return false;
                }
                at += (length + 3) & ~3;
            }
            return false;
        }

        @Override
        public void close() throws Exception {
            facingClient.close();
            facingServer.close();
            up.join();
            down.join();
        }
    }
}
