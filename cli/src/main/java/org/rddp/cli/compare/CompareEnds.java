package org.rddp.cli.compare;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rddp.cli.perftest.Baselines;
import org.rddp.cli.perftest.MpaFloor;
import org.rddp.cli.Driver;
import org.rddp.cli.PeerException;
import org.rddp.cli.TransportOptions;
import org.rddp.cli.compare.Compare.Task;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.cli.perftest.PerfSession;
import org.rddp.cli.perftest.Perftest.Test;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.mpa.Mptcp;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.RdmaDevice;

/**
 * The two ends of one point of {@code rddp compare}: the server end (the responder's), which listens on a port of
 * its own from the moment it is made, and the client end (the initiator's), which connects to it and measures. RDDP
 * runs as perftest's {@code write-bw} and {@code send-lat} ({@link PerfSession}), the baselines as
 * {@link Baselines}. {@link #inProcess} runs both ends in this process on loopback; {@link CompareResponder} and
 * {@link ComparePeer} run them in two.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // the server thread hands whatever ended it to the caller
final class CompareEnds {
    /** How long one end waits for the other at any step. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** How long a failed client end waits for its server end's own failure, to report both. */
    private static final Duration SERVER_FAILURE_WAIT = Duration.ofSeconds(5);
    private static final int STREAMS = 8;

    /**
     * What both ends run over.
     *
     * @param mpa       RDDP over MPA
     * @param sctp      RDDP over SCTP
     * @param sctpStack the raw SCTP baseline's backend (the same as RDDP's), or null without SCTP
     * @param cqMod     RDDP's Write bandwidth: one request in this many signaled (perftest's {@code --cq-mod})
     * @param postList  RDDP's Write bandwidth: requests posted per call (perftest's {@code --post-list})
     */
    record Transports(TransportOptions mpa, TransportOptions sctp, SctpStack sctpStack, int cqMod, int postList) {
        /** With perftest's defaults: one in 100 signaled, posted one by one. */
        Transports(TransportOptions mpa, TransportOptions sctp, SctpStack sctpStack) {
            this(mpa, sctp, sctpStack, PerfSession.Settings.CQ_MOD, 1);
        }
    }

    /** The server end of a point, listening from the moment it is made until closed. */
    interface Server extends AutoCloseable {
        /** The port the client end connects to. */
        int port();

        /** Takes the client's connection and runs this end to the end of the point. */
        void serve() throws Exception;

        @Override
        void close();
    }

    private CompareEnds() {
    }

    /** The server end of {@code task}, listening on {@code bind}. */
    static Server server(Task task, Transports transports, InetAddress bind) throws IOException {
        if (task.series().ipv6() != bind instanceof java.net.Inet6Address && !bind.isAnyLocalAddress()) {
            throw new IllegalArgumentException(task.series().label + " does not run on " + bind);
        }
        return switch (task.series().measured()) {
            case TCP_SOCKET, MPA_FLOOR -> new TcpServer(task, bind);
            case SCTP_SOCKET -> new SctpServer(task, stack(transports), transports.sctp(), bind);
            case JDK_SCTP_SOCKET -> new JdkSctpServer(task, bind);
            case NETTY_SCTP_SOCKET -> new NettyServer(task, bind);
            case RDDP_MPA -> new RddpServer(task, transports, transports.mpa(), bind);
            case RDDP_SCTP -> new RddpServer(task, transports, transports.sctp(), bind);
            case EXS_MPA, EXS_SCTP -> throw new IllegalArgumentException(task.series().label
                    + " runs with both ends in one process only");
            default -> throw new IllegalArgumentException(task.series().label + " is measured as another series");
        };
    }

    /**
     * Runs the client end of {@code task} against the server end at {@code server}; returns what it measured. A
     * failover point's client end receives, noting each message's arrival in {@code arrivals}; a load's notes each
     * answer there with when its message was sent (null: nothing noted).
     */
    static PerfResult client(Task task, Transports transports, InetSocketAddress server,
            org.rddp.cli.perftest.Arrivals arrivals) throws Exception {
        boolean bandwidth = task.bandwidth();
        switch (task.series().measured()) {
            case MPA_FLOOR -> {
                try (SocketChannel channel = Baselines.noDelay(SocketChannel.open(server))) {
                    return MpaFloor.ping(channel, floorMulpdu(channel), task.size(), (int) task.iterations(), TIMEOUT);
                }
            }
            case TCP_SOCKET -> {
                try (SocketChannel channel = Baselines.noDelay(tcpConnect(task, server))) {
                    if (task.failover()) {
                        return TcpStream.receive(channel, task.size(), arrivals, TIMEOUT);
                    }
                    return bandwidth ? Baselines.tcpSend(channel, task.size(), task.iterations(),
                            Test.WRITE_BW.defaultTxDepth())
                            : task.load() ? Baselines.tcpLoad(channel, task.size(), (int) task.iterations(),
                                    task.rate(), Compare.Load.WINDOW, TIMEOUT, arrivals)
                            : Baselines.tcpPing(channel, task.size(), (int) task.iterations(), TIMEOUT);
                }
            }
            case JDK_SCTP_SOCKET -> {
                try (com.sun.nio.sctp.SctpChannel channel = JdkSctp.connect(server)) {
                    return bandwidth ? JdkSctp.send(channel, task.size(), task.iterations(),
                            Test.WRITE_BW.defaultTxDepth())
                            : JdkSctp.ping(channel, task.size(), (int) task.iterations(), TIMEOUT);
                }
            }
            case NETTY_SCTP_SOCKET -> {
                return NettySctp.client(task, server, Test.WRITE_BW.defaultTxDepth(), TIMEOUT);
            }
            case SCTP_SOCKET -> {
                InetSocketAddress local = new InetSocketAddress(TransportOptions.localFor(server.getAddress()), 0);
                SctpStack stack = stack(transports);
                // a manual loop of this thread's, which drives it meanwhile: the handshake runs on it
                try (Loop loop = Loop.manual("sctp-socket-client", stack.newPoller());
                        SctpSocket socket = stack.connect(loop, local, transports.sctp().multihome, server, STREAMS,
                                DdpSctp.ADAPTATION_INDICATION, transports.sctp().protocolParameters(), TIMEOUT)) {
                    Driver driver = Driver.of(loop);
                    if (task.failover()) {
                        return SctpStream.receive(socket, driver, arrivals, TIMEOUT);
                    }
                    PerfResult result = bandwidth ? Baselines.sctpSend(socket, driver, task.size(),
                            task.iterations(), Test.WRITE_BW.defaultTxDepth(), TIMEOUT)
                            : Baselines.sctpPing(socket, driver, task.size(), (int) task.iterations(), TIMEOUT);
                    Baselines.sctpShutdown(socket, driver, TIMEOUT); // before the loop stops: not timed
                    return result;
                }
            }
            default -> {
                TransportOptions transport = task.series().measured() == Compare.Series.RDDP_MPA ? transports.mpa()
                        : transports.sctp();
                boolean mptcp = task.series().mptcp();
                if (task.scale()) {
                    System.gc(); // what earlier points left is not counted against these queue pairs (mostly)
                }
                PerfSession session = new PerfSession(new RdmaDevice("rddp-compare"), settings(task, transports), true,
                        line -> { }, line -> { });
                session.mptcpOnly = mptcp;
                session.reversed = task.failover();
                session.arrivals = arrivals;
                List<PerfResult> results = new ArrayList<>();
                try (ConnectionManager manager = transport.open(TransportOptions.localFor(server.getAddress()),
                        Progress.manual(), mptcp)) {
                    session.client(manager, server, transport.connectOptions(task.failover()), results::add);
                }
                return task.scale() ? new PerfResult.Scale((PerfResult.Bandwidth) results.getFirst(),
                        session.setup()) : results.getFirst();
            }
        }
    }

    /** A TCP connection to {@code server}, over Multipath TCP if {@code task}'s series runs it. */
    private static SocketChannel tcpConnect(Task task, InetSocketAddress server) throws IOException {
        if (!task.series().mptcp()) {
            return SocketChannel.open(server);
        }
        SocketChannel channel = SocketChannel.open();
        try {
            Mptcp.bind(channel, new InetSocketAddress(TransportOptions.localFor(server.getAddress()), 0));
            channel.connect(server);
            requireMptcp(channel, "the TCP socket's connection");
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Fails unless {@code channel} runs Multipath TCP: a series over MPTCP whose connection fell back to TCP would
     * present TCP's figures as MPTCP's.
     */
    static void requireMptcp(SocketChannel channel, String what) throws IOException {
        Mptcp.Protocol protocol = Mptcp.protocol(channel);
        if (protocol != Mptcp.Protocol.MPTCP) {
            throw new IOException(what + " runs " + protocol + ", not MPTCP: the peer did not answer with MPTCP");
        }
    }

    /**
     * Both ends of {@code task} in this process, on loopback: the server end on a thread of its own, which makes it
     * (its loop is manual: the thread that serves drives it) and serves it; this thread is the client end.
     */
    static PerfResult inProcess(Task task, Transports transports, org.rddp.cli.perftest.Arrivals arrivals)
            throws Exception {
        InetAddress loopback = task.series().ipv6() ? InetAddress.getByName("::1") : InetAddress.getLoopbackAddress();
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        CompletableFuture<Void> served = new CompletableFuture<>();
        Thread.ofPlatform().name("rddp-compare-server").daemon().start(() -> {
            try (Server server = server(task, transports, loopback)) {
                listening.complete(server.port());
                server.serve();
                served.complete(null);
            } catch (Exception | Error e) { // handed to the caller, whatever it was
                listening.completeExceptionally(e);
                served.completeExceptionally(e);
            }
        });
        try {
            int port = listening.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS); // the server's failure, if not
            PerfResult result;
            try {
                result = client(task, transports, new InetSocketAddress(loopback, port), arrivals);
            } catch (Exception e) {
                serverFailure(served).ifPresent(e::addSuppressed);
                throw e;
            }
            served.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return result;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /**
     * Why the server end failed, when the client end did too: often the client's failure is only the server's seen
     * from the other end (the association ended), so the server has a moment, {@link #SERVER_FAILURE_WAIT}, to say.
     */
    private static Optional<Throwable> serverFailure(CompletableFuture<Void> served) {
        try {
            served.get(SERVER_FAILURE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return Optional.empty();
        } catch (ExecutionException e) {
            return Optional.of(new IOException("the server end: " + e.getCause().getMessage(),
                    e.getCause()));
        } catch (TimeoutException stillServing) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The MULPDU RDDP over MPA takes on {@code channel}'s path (its local interface's MTU, no markers). */
    private static int floorMulpdu(SocketChannel channel) throws IOException {
        return org.rddp.transport.mpa.MpaConnectionManager.mulpdu(((InetSocketAddress) channel.getLocalAddress())
                .getAddress(), false);
    }

    /**
     * The perftest run RDDP's point is: Write bandwidth, Send ping-pong latency, or Sends at an offered load
     * ({@code send-lat --rate}, {@link Compare.Load#WINDOW} deep on both sides), or Writes with their notifying Sends
     * ({@code write-lat --rate}), at one size.
     */
    static PerfSession.Settings settings(Task task, Transports transports) {
        if (task.failover()) { // send-bw for the transfer's seconds, reversed (the server sends), every octet checked
            return new PerfSession.Settings(Test.SEND_BW, List.of(task.size()), 0, (int) task.iterations(),
                    Test.SEND_BW.defaultTxDepth(), Test.SEND_BW.defaultRxDepth(), 1, true, TIMEOUT);
        }
        if (task.load()) {
            Test test = task.writes() ? Test.WRITE_LAT : Test.SEND_LAT;
            return new PerfSession.Settings(test, List.of(task.size()), (int) task.iterations(), 0,
                    org.rddp.cli.perftest.PerfCommand.loadTxDepth(test), Compare.Load.WINDOW, 1, false, TIMEOUT,
                    PerfSession.Settings.CQ_MOD, 1, task.rate());
        }
        if (task.scale()) { // each queue pair its share of the messages
            return new PerfSession.Settings(Test.WRITE_BW, List.of(task.size()), (int) task.iterations(), 0,
                    Test.WRITE_BW.defaultTxDepth(), 1, task.qps(), false, TIMEOUT, transports.cqMod(),
                    transports.postList());
        }
        return task.bandwidth()
                ? new PerfSession.Settings(Test.WRITE_BW, List.of(task.size()), (int) task.iterations(), 0,
                        Test.WRITE_BW.defaultTxDepth(), 1, 1, false, TIMEOUT, transports.cqMod(), transports.postList())
                : new PerfSession.Settings(Test.SEND_LAT, List.of(task.size()), (int) task.iterations(), 0, 1,
                        Test.SEND_LAT.defaultRxDepth(), 1, false, TIMEOUT);
    }

    private static SctpStack stack(Transports transports) {
        if (transports.sctpStack() == null) {
            throw new IllegalArgumentException("SCTP was not agreed on for this comparison");
        }
        return transports.sctpStack();
    }

    /** RDDP's server end: a listener of the transport; perftest's control and data connections arrive on it. */
    private static final class RddpServer implements Server {
        private final TransportOptions transport;
        private final PerfSession.Settings settings;
        private final PerfSession session;
        private final BlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
        private final ConnectionManager manager;
        private final Driver driver;
        private final Listener listener;

        /** Made on the thread that serves it: its loop is manual, and that thread drives it. */
        RddpServer(Task task, Transports transports, TransportOptions transport, InetAddress bind) throws IOException {
            this.transport = transport;
            settings = settings(task, transports);
            session = new PerfSession(new RdmaDevice("rddp-compare"), settings, false, line -> { }, line -> { });
            session.mptcpOnly = task.series().mptcp();
            session.reversed = task.failover();
            manager = transport.open(bind, Progress.manual(), task.series().mptcp());
            driver = Driver.of(manager);
            try {
                listener = manager.listen(new InetSocketAddress(bind, 0), driver.adder(requests));
            } catch (IOException | RuntimeException e) {
                manager.close();
                throw e;
            }
        }

        @Override
        public int port() {
            return ((InetSocketAddress) listener.address()).getPort();
        }

        @Override
        public void serve() throws Exception {
            ConnectionRequest control = driver.poll(requests, TIMEOUT);
            if (control == null) {
                throw new PeerException("no connection from the client within " + TIMEOUT.toSeconds() + " s");
            }
            try {
                driver.await(control.accept(session.controlQueuePair(), transport.acceptOptions()), TIMEOUT);
            } catch (ExecutionException e) {
                throw new PeerException("accepting the control connection failed: " + e.getCause().getMessage());
            } catch (TimeoutException e) {
                throw new PeerException("the control connection was not set up within " + TIMEOUT.toSeconds() + " s");
            }
            session.server(driver, requests, transport.acceptOptions(), result -> { });
        }

        @Override
        public void close() {
            listener.close();
            try {
                manager.close();
            } catch (IOException e) {
                // closing after the point: the point's own outcome is what counts
            }
        }
    }

    /** The TCP baseline's server end: a listening socket; the receiver or the echo. */
    private static final class TcpServer implements Server {
        private final Task task;
        private final ServerSocketChannel listener;

        TcpServer(Task task, InetAddress bind) throws IOException {
            this.task = task;
            listener = ServerSocketChannel.open();
            try {
                if (task.series().mptcp()) {
                    Mptcp.bind(listener, new InetSocketAddress(bind, 0), 0);
                } else {
                    listener.bind(new InetSocketAddress(bind, 0));
                }
            } catch (IOException | RuntimeException e) {
                listener.close();
                throw e;
            }
        }

        @Override
        public int port() {
            return listener.socket().getLocalPort();
        }

        @Override
        public void serve() throws IOException {
            listener.socket().setSoTimeout((int) TIMEOUT.toMillis());
            SocketChannel accepted;
            try {
                accepted = listener.socket().accept().getChannel();
            } catch (SocketTimeoutException e) {
                throw new IOException("no connection from the client within " + TIMEOUT.toSeconds() + " s", e);
            }
            try (SocketChannel channel = Baselines.noDelay(accepted)) {
                if (task.series().mptcp()) {
                    requireMptcp(channel, "the TCP socket's accepted connection");
                }
                if (task.failover()) {
                    TcpStream.send(channel, task.size(), task.iterations(), TIMEOUT);
                } else if (task.series() == Compare.Series.MPA_FLOOR) {
                    MpaFloor.echo(channel, floorMulpdu(channel), task.size(), (int) task.iterations(), TIMEOUT);
                } else if (task.bandwidth()) {
                    Baselines.tcpSink(channel, task.size() * task.iterations());
                } else {
                    Baselines.tcpEcho(channel, task.size(), (int) task.iterations(), TIMEOUT,
                            task.load() ? 0 : org.rddp.cli.Completions.SPIN); // a load's echo sleeps, as RDDP's
                }
            }
        }

        @Override
        public void close() {
            try {
                listener.close();
            } catch (IOException e) {
                // closing after the point: the point's own outcome is what counts
            }
        }
    }

    /**
     * The raw SCTP baseline's server end: a listening socket of the stack, on a manual loop of the thread that serves
     * it, as RDDP's server end; the receiver or the echo.
     */
    private static final class SctpServer implements Server {
        private final Task task;
        private final Loop loop;
        private final Driver driver;
        private final SctpStack.Listening listening;
        private final CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
        private volatile boolean taken;

        SctpServer(Task task, SctpStack stack, TransportOptions sctp, InetAddress bind) throws IOException {
            this.task = task;
            loop = Loop.manual("sctp-socket-server", stack.newPoller());
            driver = Driver.of(loop);
            try {
                listening = stack.listen(loop, new InetSocketAddress(bind, 0), sctp.multihome, STREAMS,
                        DdpSctp.ADAPTATION_INDICATION, sctp.protocolParameters());
            } catch (IOException | RuntimeException e) {
                loop.close();
                throw e;
            }
            listening.start(socket -> {
                if (!accepted.complete(socket)) {
                    socket.abort(); // one association per point
                }
            });
        }

        @Override
        public int port() {
            return listening.address().getPort();
        }

        @Override
        public void serve() throws Exception {
            SctpSocket association;
            try {
                association = driver.await(accepted, TIMEOUT);
            } catch (TimeoutException e) {
                throw new IOException("no association from the client within " + TIMEOUT.toSeconds() + " s", e);
            }
            taken = true;
            try (SctpSocket socket = association) {
                if (task.failover()) {
                    SctpStream.send(socket, driver, task.size(), task.iterations(), TIMEOUT);
                } else if (task.bandwidth()) {
                    Baselines.sctpSink(socket, driver, task.size() * task.iterations(), TIMEOUT);
                } else {
                    Baselines.sctpEcho(socket, driver, task.size(), (int) task.iterations(), TIMEOUT);
                }
            }
        }

        @Override
        public void close() {
            listening.close();
            if (!accepted.completeExceptionally(new IOException("the point is over")) && !taken) {
                accepted.join().abort(); // accepted, never served
            }
            loop.close(); // on its own thread: the listener's close queued above runs first
        }
    }

    /** Netty's SCTP baseline's server end: its server channel on an event loop of its own, one association a point. */
    private static final class NettyServer implements Server {
        private final NettySctp.Server server;

        NettyServer(Task task, InetAddress bind) throws IOException {
            server = new NettySctp.Server(task, bind);
        }

        @Override
        public int port() {
            return server.port();
        }

        @Override
        public void serve() throws Exception {
            server.serve(TIMEOUT);
        }

        @Override
        public void close() {
            server.close();
        }
    }

    /** The JDK SCTP baseline's server end: a server channel of the JDK's, one association per point. */
    private static final class JdkSctpServer implements Server {
        private final Task task;
        private final com.sun.nio.sctp.SctpServerChannel listening;

        JdkSctpServer(Task task, InetAddress bind) throws IOException {
            this.task = task;
            this.listening = JdkSctp.listen(bind);
        }

        @Override
        public int port() {
            try {
                return JdkSctp.port(listening);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void serve() throws Exception {
            try (com.sun.nio.sctp.SctpChannel channel = JdkSctp.accept(listening, TIMEOUT)) {
                if (task.bandwidth()) {
                    JdkSctp.sink(channel, task.size() * task.iterations());
                } else {
                    JdkSctp.echo(channel, task.size(), (int) task.iterations(), TIMEOUT);
                }
            }
        }

        @Override
        public void close() {
            try {
                listening.close();
            } catch (IOException e) {
                // the point is over anyway
            }
        }
    }
}
