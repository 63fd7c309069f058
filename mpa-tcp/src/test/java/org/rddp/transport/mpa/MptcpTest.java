package org.rddp.transport.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.llp.LlpPath;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Listener;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * Issue 51: Multipath TCP (RFC 8684) under Java's channels and under MPA, on loopback, where a connection has one path
 * and so one subflow: the sockets run MPTCP, carry their bytes, report their subflow, keep the channel's blocking mode;
 * a peer that does not speak MPTCP gives plain TCP, and each end says which it runs. This machine's kernel has MPTCP
 * on: a host without it fails the first test with the reason.
 */
class MptcpTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int WAIT_SECONDS = 20;

    @Test
    void thisHostOpensMultipathTcpSockets() {
        assertThat(Mptcp.unavailable()).as("net.mptcp.enabled on this machine's kernel").isNull();
    }

    @Test
    void channelsBoundThroughItRunMultipathTcpAndCarryTheirBytes() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open(); SocketChannel client = SocketChannel.open()) {
            Mptcp.bind(server, new InetSocketAddress(LOOPBACK, 0), 4);
            Mptcp.bind(client, new InetSocketAddress(LOOPBACK, 0));
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                client.write(ByteBuffer.wrap("over MPTCP".getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer in = ByteBuffer.allocate(10);
                while (in.hasRemaining()) {
                    assertThat(accepted.read(in)).isNotNegative();
                }
                assertThat(new String(in.array(), StandardCharsets.US_ASCII)).isEqualTo("over MPTCP");
                assertThat(Mptcp.protocol(client)).isEqualTo(Mptcp.Protocol.MPTCP);
                assertThat(Mptcp.protocol(accepted)).isEqualTo(Mptcp.Protocol.MPTCP);
                List<Mptcp.Subflow> subflows = Mptcp.subflows(client);
                assertThat(subflows).as("loopback: one path, one subflow").hasSize(1);
                Mptcp.Subflow subflow = subflows.getFirst();
                assertThat(subflow.local()).isEqualTo(client.getLocalAddress());
                assertThat(subflow.remote()).isEqualTo(server.getLocalAddress());
                assertThat(subflow.established()).isTrue();
                assertThat(subflow.octetsSent()).as("the 10 octets, went by this subflow").isGreaterThanOrEqualTo(10);
                assertThat(Mptcp.subflows(accepted).getFirst().octetsReceived()).isGreaterThanOrEqualTo(10);
            }
        }
    }

    @Test
    void aChannelKeepsItsBlockingModeThroughTheSwap() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open(); SocketChannel client = SocketChannel.open()) {
            server.configureBlocking(false);
            Mptcp.bind(server, new InetSocketAddress(LOOPBACK, 0), 4);
            assertThat(server.accept()).as("a non-blocking listener with nothing to accept").isNull();
            client.configureBlocking(false);
            Mptcp.bind(client, new InetSocketAddress(LOOPBACK, 0));
            client.connect(server.getLocalAddress());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!client.finishConnect()) {
                assertThat(System.nanoTime() - deadline).as("connected within %d s", WAIT_SECONDS).isNegative();
                Thread.onSpinWait();
            }
            SocketChannel accepted = server.accept();
            while (accepted == null) {
                assertThat(System.nanoTime() - deadline).as("accepted within %d s", WAIT_SECONDS).isNegative();
                Thread.onSpinWait();
                accepted = server.accept();
            }
            accepted.close();
            assertThat(client.read(ByteBuffer.allocate(1))).as("a non-blocking read returns").isIn(0, -1);
            assertThat(Mptcp.protocol(client)).isEqualTo(Mptcp.Protocol.MPTCP);
        }
    }

    @Test
    void aPlainTcpServerGivesTcpAndBothEndsSaySo() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open(); SocketChannel client = SocketChannel.open()) {
            server.bind(new InetSocketAddress(LOOPBACK, 0));
            Mptcp.bind(client, new InetSocketAddress(LOOPBACK, 0));
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                assertThat(Mptcp.protocol(client)).isEqualTo(Mptcp.Protocol.TCP_FALLBACK);
                assertThat(Mptcp.protocol(accepted)).isEqualTo(Mptcp.Protocol.TCP);
                assertThat(Mptcp.subflows(client)).as("no MPTCP, no subflows").isEmpty();
            }
        }
    }

    @Test
    void aPlainTcpClientOfAMultipathServerIsTcp() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open(); SocketChannel client = SocketChannel.open()) {
            Mptcp.bind(server, new InetSocketAddress(LOOPBACK, 0), 4);
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                assertThat(Mptcp.protocol(client)).isEqualTo(Mptcp.Protocol.TCP);
                assertThat(Mptcp.protocol(accepted)).isEqualTo(Mptcp.Protocol.TCP);
            }
        }
    }

    @Test
    void mpaOverMultipathTcpSaysWhatItRunsAndListsItsSubflow() throws Exception {
        MpaOptions mptcp = MpaOptions.defaults().withMptcp(true);
        try (Pair pair = new Pair(mptcp, mptcp)) {
            assertThat(Mptcp.protocol(pair.initiator)).isEqualTo(Mptcp.Protocol.MPTCP);
            assertThat(Mptcp.protocol(pair.responder)).isEqualTo(Mptcp.Protocol.MPTCP);
            assertThat(pair.initiator.queuePair().stream().toString()).contains("[CRC, MPTCP]");
            List<LlpPath> paths = pair.initiator.queuePair().paths().get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(paths).hasSize(1);
            assertThat(paths.getFirst().local()).as("a subflow names its local address").isNotNull();
            assertThat(paths.getFirst().state()).isEqualTo(LlpPath.State.ACTIVE);
            assertThat(paths.getFirst().primary()).as("the only subflow carries everything").isTrue();
        }
    }

    @Test
    void mpaOverMultipathTcpToAPlainServerRunsTcpAndSaysWhy() throws Exception {
        try (Pair pair = new Pair(MpaOptions.defaults().withMptcp(true), MpaOptions.defaults())) {
            assertThat(Mptcp.protocol(pair.initiator)).isEqualTo(Mptcp.Protocol.TCP_FALLBACK);
            assertThat(pair.initiator.queuePair().stream().toString())
                    .contains("TCP: the peer answered MPTCP with plain TCP");
            assertThat(Mptcp.protocol(pair.responder)).isEqualTo(Mptcp.Protocol.TCP);
            assertThat(pair.responder.queuePair().stream().toString()).contains("[CRC]");
        }
        try (Pair pair = new Pair(MpaOptions.defaults(), MpaOptions.defaults().withMptcp(true))) {
            assertThat(pair.responder.queuePair().stream().toString())
                    .contains("TCP: the client did not ask for MPTCP");
        }
    }

    @Test
    void theMulpduOverMultipathTcpLeavesRoomForTheDssOption() {
        assertThat(MpaConnectionManager.mulpdu(LOOPBACK, false, 1500, true))
                .isEqualTo(MpaConnectionManager.mulpdu(LOOPBACK, false, 1500) - 28);
    }

    /** Two managers and a connection between them, each end's queue pair in RTS. */
    private static final class Pair implements AutoCloseable {
        final MpaConnectionManager initiatorManager;
        final MpaConnectionManager responderManager;
        final Listener listener;
        final Connection initiator;
        final Connection responder;

        Pair(MpaOptions initiatorOptions, MpaOptions responderOptions) throws Exception {
            initiatorManager = new MpaConnectionManager(initiatorOptions, LOOPBACK);
            responderManager = new MpaConnectionManager(responderOptions, LOOPBACK);
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            QueuePair responderQp = queuePair("responder");
            listener = responderManager.listen(new InetSocketAddress(LOOPBACK, 0), request -> request.accept(
                    responderQp, new AcceptOptions(PrivateData.EMPTY, 4, 4)).whenComplete((connection, failure) -> {
                        if (failure != null) {
                            accepted.completeExceptionally(failure);
                        } else {
                            accepted.complete(connection);
                        }
                    }));
            initiator = initiatorManager.connect(queuePair("initiator"), listener.address(), ConnectOptions.of(4, 4))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            responder = accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        private static QueuePair queuePair(String name) {
            RdmaDevice device = new RdmaDevice(name);
            CompletionQueue cq = device.createCompletionQueue(16);
            return device.allocateProtectionDomain().createQueuePair(new QpAttributes(cq, cq, null, 4, 4, 1, true,
                    (pair, event, terminate, detail) -> { }));
        }

        @Override
        public void close() {
            listener.close();
            initiatorManager.close();
            responderManager.close();
        }
    }
}
