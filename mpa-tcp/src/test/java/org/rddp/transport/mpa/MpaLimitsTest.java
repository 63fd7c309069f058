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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.work.QpEvent;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * Issue 16 item 2 and issue 32 finding 5: a server's connections are bounded by limits a user sets
 * (MpaOptions.withLimits, withStartupsPerSource), connections in startup cost no thread, and a flood of silent
 * connections cannot keep a client out.
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

    /** Opens {@code count} silent connections to {@code listener} from {@code source}, without a Request. */
    private static List<Socket> silent(Listener listener, InetAddress source, int count) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        int port = ((InetSocketAddress) listener.address()).getPort();
        for (int i = 0; i < count; i++) {
            sockets.add(new Socket(LOOPBACK, port, source, 0));
        }
        return sockets;
    }

    private static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    /**
     * Silent connections from one address are held to its limit and the rest reset, counted and told, with no thread
     * per connection; a client from another address is served meanwhile.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void silentConnectionsFromOneAddressAreHeldToItsLimitAndAClientFromAnotherIsServed() throws Exception {
        int perSource = 16;
        int flood = 100;
        LinkedBlockingQueue<MpaConnectionManager.Refusal> refusals = new LinkedBlockingQueue<>();
        InetAddress flooder = InetAddress.getByName("127.0.0.3");
        try (MpaConnectionManager server = new MpaConnectionManager(MpaOptions.defaults()
                .withStartupsPerSource(perSource), LOOPBACK);
                MpaConnectionManager client = new MpaConnectionManager(MpaOptions.defaults(),
                        InetAddress.getByName("127.0.0.2"));
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), requests::add)) {
            server.onRefusal(refusals::add);
            long threadsBefore = mpaThreads();
            long refusedBefore = Counters.process().get(Counter.CONNECTIONS_REFUSED);
            List<Socket> silent = silent(listener, flooder, flood);
            for (int i = 0; i < flood - perSource; i++) {
                MpaConnectionManager.Refusal refusal = refusals.poll(30, TimeUnit.SECONDS);
                assertThat(refusal).as("refusal %d", i).isNotNull();
                assertThat(refusal.reason()).contains("too many connections in startup from 127.0.0.3: 16");
            }
            assertThat(mpaThreads()).as("no thread per connection in startup").isEqualTo(threadsBefore);
            assertThat(Counters.process().get(Counter.CONNECTIONS_REFUSED) - refusedBefore).as("counted")
                    .isGreaterThanOrEqualTo(flood - perSource);
            assertThat(server.counters().get(Counter.CONNECTIONS_REFUSED)).as("by the manager that refused")
                    .isGreaterThanOrEqualTo(flood - perSource);
            assertThat(client.counters().get(Counter.CONNECTIONS_REFUSED)).as("not by another").isZero();
            int reset = 0;
            for (Socket socket : silent.subList(perSource, flood)) { // the kernel accepted them in order
                reset += ended(socket) ? 1 : 0;
            }
            assertThat(reset).as("the connections over the address's limit are reset").isEqualTo(flood - perSource);
            connectAccepted(client, listener, qp(), qp());
            assertThat(requests).as("nothing of the flood reached the ULP").isEmpty();
            closeAll(silent);
        }
    }

    /**
     * Issue 32, finding 5: 1,100 silent connections, from one address as it was found, and from twenty (55 each,
     * under any address's limit). The first 1,024 take every startup slot. From one address the rest are refused by
     * the address's limit (the slots); from twenty each one past the slots resets a silent one, the address with the
     * most losing its oldest first. Either way a client from another address that connects while they are held is
     * served: its connection resets the flood's oldest to make room, and its Request comes within a round trip.
     */
    @ParameterizedTest(name = "from {0} address(es)")
    @CsvSource({"1, too many connections in startup from 127.0.1.1: 1024", "20, reset to make room"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aFloodOfSilentConnectionsCannotKeepAClientOut(int sources, String pastTheSlots) throws Exception {
        int flood = 1_100;
        MpaOptions defaults = MpaOptions.defaults();
        LinkedBlockingQueue<MpaConnectionManager.Refusal> refusals = new LinkedBlockingQueue<>();
        List<Socket> silent = new ArrayList<>();
        try (MpaConnectionManager server = new MpaConnectionManager(defaults, LOOPBACK);
                MpaConnectionManager client = new MpaConnectionManager(defaults, InetAddress.getByName("127.0.0.2"));
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), requests::add)) {
            server.onRefusal(refusals::add);
            for (int i = 0; i < sources; i++) {
                silent.addAll(silent(listener, InetAddress.getByName("127.0.1." + (i + 1)), flood / sources));
            }
            for (int i = 0; i < flood - defaults.maxStartups(); i++) {
                MpaConnectionManager.Refusal refusal = refusals.poll(30, TimeUnit.SECONDS);
                assertThat(refusal).as("refusal %d", i).isNotNull();
                assertThat(refusal.reason()).contains(pastTheSlots);
            }
            connectAccepted(client, listener, qp(), qp());
            assertThat(refusals.poll(30, TimeUnit.SECONDS).reason()).as("the client's connection made room")
                    .contains("reset to make room");
            if (sources == 1) {
                assertThat(ended(silent.get(0))).as("the flood's oldest connection was reset").isTrue();
            }
            assertThat(requests).as("nothing of the flood reached the ULP").isEmpty();
        } finally {
            closeAll(silent);
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
            long lostBefore = Counters.process().get(Counter.CONNECTIONS_LOST);
            assertThat(serverLost.poll(30, TimeUnit.SECONDS)).as("the server's queue pair")
                    .contains("idle: nothing sent or received for 200 ms");
            assertThat(clientLost.poll(30, TimeUnit.SECONDS)).as("the client's, reset").isNotNull();
            assertThat(Counters.process().get(Counter.CONNECTIONS_LOST)).isGreaterThanOrEqualTo(lostBefore + 1);
            assertThat(server.counters().get(Counter.CONNECTIONS_LOST)).as("the server's own").isEqualTo(1);
            assertThat(MpaTransport.awaitRegistered(server, 1)).as("only the listener left on the loop").isEqualTo(1);
        }
    }

    /** A queue pair that reports the detail of a lost connection to {@code lost}. */
    private static QpAttributes lostTo(CompletionQueue cq, LinkedBlockingQueue<String> lost) {
        return new QpAttributes(cq, cq, null, 4, 4, 1, true, (qp, event, terminate, detail) -> {
            if (event == org.rddp.work.QpEvent.CONNECTION_LOST) {
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
