package org.rddp.transport.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Counter;
import org.rddp.verbs.Counters;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpEvent;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * Issue 16 item 2: a server's connections are bounded by limits a user sets (MpaOptions.withLimits), and connections
 * in startup cost no thread: a flood of silent connections is held to the limit, the rest reset, and a client is
 * served once the flood is gone.
 */
class MpaLimitsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final LinkedBlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
    private final ProtectionDomain pd = new RdmaDevice("limits").allocateProtectionDomain();
    private final CompletionQueue cq = pd.device().createCompletionQueue(64);

    private QueuePair qp() {
        return pd.createQueuePair(QpAttributes.of(cq, 4, 1));
    }

    /** Connects a queue pair through {@code client}, has the server's ULP accept it, and waits until it is up. */
    private Connection connectAccepted(MpaConnectionManager client, Listener listener, QueuePair qp,
            QueuePair serverQp) throws Exception {
        CompletableFuture<Connection> connecting = client.connect(qp, listener.address(), ConnectOptions.of(1, 1));
        requests.poll(30, TimeUnit.SECONDS).accept(serverQp, new AcceptOptions(PrivateData.EMPTY, 1, 1))
                .get(30, TimeUnit.SECONDS);
        return connecting.get(30, TimeUnit.SECONDS);
    }

    private static long mpaThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("mpa-")).count();
    }

    /** Whether the server ended this connection (EOF or reset) rather than keeping it. */
    private static boolean ended(Socket socket) throws IOException {
        socket.setSoTimeout(30_000); // a bound on a broken server, not a synchronisation
        InputStream in = socket.getInputStream();
        try {
            return in.read() < 0;
        } catch (SocketException reset) {
            return true;
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aFloodOfSilentConnectionsIsHeldToTheLimitWithoutThreadsAndTheClientComesAfter() throws Exception {
        int limit = 100;
        int flood = 300;
        LinkedBlockingQueue<MpaConnectionManager.Refusal> refusals = new LinkedBlockingQueue<>();
        try (MpaConnectionManager server = new MpaConnectionManager(MpaOptions.defaults().withLimits(limit, 16),
                LOOPBACK);
                MpaConnectionManager client = new MpaConnectionManager(MpaOptions.defaults(), LOOPBACK);
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), requests::add)) {
            server.onRefusal(refusals::add);
            long threadsBefore = mpaThreads();
            long refusedBefore = Counters.get(Counter.CONNECTIONS_REFUSED);
            List<Socket> silent = new ArrayList<>();
            for (int i = 0; i < flood; i++) {
                silent.add(new Socket(LOOPBACK, ((InetSocketAddress) listener.address()).getPort()));
            }
            List<MpaConnectionManager.Refusal> overLimit = new ArrayList<>();
            while (overLimit.size() < flood - limit) {
                MpaConnectionManager.Refusal refusal = refusals.poll(30, TimeUnit.SECONDS);
                assertThat(refusal).as("refusals so far: %d", overLimit.size()).isNotNull();
                overLimit.add(refusal);
            }
            assertThat(overLimit).allSatisfy(refusal -> assertThat(refusal.reason())
                    .contains("too many connections in startup: 100"));
            assertThat(mpaThreads()).as("no thread per connection in startup").isEqualTo(threadsBefore);
            assertThat(Counters.get(Counter.CONNECTIONS_REFUSED) - refusedBefore).as("counted")
                    .isEqualTo(flood - limit);
            int reset = 0;
            for (Socket socket : silent.subList(limit, flood)) { // the kernel accepted them in order
                reset += ended(socket) ? 1 : 0;
            }
            assertThat(reset).as("the connections over the limit are reset").isEqualTo(flood - limit);

            QueuePair refused = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
            CompletableFuture<Connection> tooSoon = client.connect(refused, listener.address(),
                    ConnectOptions.of(1, 1));
            assertThat(catchCause(tooSoon)).as("a client while the limit is taken").isInstanceOf(IOException.class);
            assertThat(refusals.poll(30, TimeUnit.SECONDS).reason()).contains("too many connections in startup");

            for (Socket socket : silent.subList(0, limit)) {
                socket.close(); // each ends its startup: a refusal (the peer closed without a Request)
            }
            for (int i = 0; i < limit; i++) {
                assertThat(refusals.poll(30, TimeUnit.SECONDS)).as("the flood's end, %d", i).isNotNull();
            }
            QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
            CompletableFuture<Connection> connecting = client.connect(qp, listener.address(), ConnectOptions.of(1, 1));
            ConnectionRequest request = requests.poll(30, TimeUnit.SECONDS);
            assertThat(request).as("the client's Request reaches the ULP").isNotNull();
            request.accept(pd.createQueuePair(QpAttributes.of(cq, 4, 1)), new AcceptOptions(PrivateData.EMPTY, 1, 1))
                    .get(30, TimeUnit.SECONDS);
            connecting.get(30, TimeUnit.SECONDS);
            assertThat(requests).as("nothing of the flood reached the ULP").isEmpty();
        }
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aRequestBeyondTheConnectionLimitIsRejectedWithoutReachingTheUlp() throws Exception {
        try (MpaConnectionManager server = new MpaConnectionManager(MpaOptions.defaults().withLimits(16, 2),
                LOOPBACK);
                MpaConnectionManager client = new MpaConnectionManager(MpaOptions.defaults(), LOOPBACK);
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), requests::add)) {
            for (int i = 0; i < 2; i++) {
                connectAccepted(client, listener, qp(), qp());
            }
            CompletableFuture<Connection> third = client.connect(qp(), listener.address(), ConnectOptions.of(1, 1));
            assertThat(catchCause(third)).as("rejected by the responder, not its ULP")
                    .isInstanceOf(ConnectionRejectedException.class);
            assertThat(requests).isEmpty();
            assertThat(server.lastRefusal()).contains("too many connections: 2 in Full Operation");
        }
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void anIdleConnectionIsResetAndItsQueuePairsHearWhy() throws Exception {
        LinkedBlockingQueue<String> serverLost = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<String> clientLost = new LinkedBlockingQueue<>();
        try (MpaConnectionManager server = new MpaConnectionManager(MpaOptions.defaults()
                .withIdleTimeout(java.time.Duration.ofMillis(200)), LOOPBACK);
                MpaConnectionManager client = new MpaConnectionManager(MpaOptions.defaults(), LOOPBACK);
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), requests::add)) {
            connectAccepted(client, listener, pd.createQueuePair(lostTo(cq, clientLost)),
                    pd.createQueuePair(lostTo(cq, serverLost)));
            long lostBefore = Counters.get(Counter.CONNECTIONS_LOST);
            assertThat(serverLost.poll(30, TimeUnit.SECONDS)).as("the server's queue pair")
                    .contains("idle: nothing sent or received for 200 ms");
            assertThat(clientLost.poll(30, TimeUnit.SECONDS)).as("the client's, reset").isNotNull();
            assertThat(Counters.get(Counter.CONNECTIONS_LOST)).isGreaterThanOrEqualTo(lostBefore + 1);
            assertThat(MpaTransport.awaitRegistered(server, 1)).as("only the listener left on the loop").isEqualTo(1);
        }
    }

    /** A queue pair that reports the detail of a lost connection to {@code lost}. */
    private static QpAttributes lostTo(CompletionQueue cq, LinkedBlockingQueue<String> lost) {
        return new QpAttributes(cq, cq, null, 4, 4, 1, true, (qp, event, terminate, detail) -> {
            if (event == org.rddp.verbs.QpEvent.CONNECTION_LOST) {
                lost.add(String.valueOf(detail));
            }
        });
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void connectionsBeyondTheMemoryLimitAreRefusedUntilOneCloses() throws Exception {
        CompletableFuture<QpEvent> firstServerEnd = new CompletableFuture<>();
        MpaOptions twoConnections = MpaOptions.defaults()
                .withMemoryLimit(2L * MpaOptions.BUFFER_OCTETS_PER_CONNECTION + 1);
        try (MpaConnectionManager server = new MpaConnectionManager(twoConnections, LOOPBACK);
                MpaConnectionManager client = new MpaConnectionManager(MpaOptions.defaults(), LOOPBACK);
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), requests::add)) {
            List<QueuePair> clientQps = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                QueuePair qp = qp();
                clientQps.add(qp);
                connectAccepted(client, listener, qp, i > 0 ? qp() : pd.createQueuePair(new QpAttributes(cq, cq, null,
                        4, 4, 1, true, (pair, event, terminate, detail) -> {
                            if (event != QpEvent.ESTABLISHED) {
                                firstServerEnd.complete(event);
                            }
                        })));
            }
            CompletableFuture<Connection> third = client.connect(qp(), listener.address(), ConnectOptions.of(1, 1));
            assertThat(catchCause(third)).as("reset at accept").isInstanceOf(IOException.class);
            assertThat(requests).isEmpty();
            assertThat(server.lastRefusal()).contains("the memory limit").contains("hold 2 connections");

            clientQps.getFirst().disconnect();
            assertThat(firstServerEnd.get(30, TimeUnit.SECONDS)).isEqualTo(QpEvent.DISCONNECTED);
            assertThat(connectAccepted(client, listener, qp(), qp())).as("the closed connection's buffers serve the "
                    + "next").isNotNull();
        }
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aConnectBeyondTheMemoryLimitFailsAtOnceAndSaysWhy() throws Exception {
        try (MpaConnectionManager server = new MpaConnectionManager(MpaOptions.defaults(), LOOPBACK);
                MpaConnectionManager client = new MpaConnectionManager(MpaOptions.defaults()
                        .withMemoryLimit(MpaOptions.BUFFER_OCTETS_PER_CONNECTION), LOOPBACK);
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), requests::add)) {
            connectAccepted(client, listener, qp(), qp());
            CompletableFuture<Connection> second = client.connect(qp(), listener.address(), ConnectOptions.of(1, 1));
            assertThat(catchCause(second)).hasMessageContaining("cannot connect to")
                    .hasMessageContaining("the memory limit").hasMessageContaining("withMemoryLimit");
            assertThat(requests).as("nothing reached the server").isEmpty();
        }
    }

    private static Throwable catchCause(CompletableFuture<?> future) throws Exception {
        try {
            future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the connection was set up");
    }
}
