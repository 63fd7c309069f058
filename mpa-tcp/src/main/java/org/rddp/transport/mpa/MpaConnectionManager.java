package org.rddp.transport.mpa;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.rddp.work.QpState;
import org.rddp.llp.LlpParameters;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.mpa.MpaFpdu;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.QpStatistics;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.spi.ManagedQueuePairs;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;

/**
 * Connection management over TCP with MPA (RFC 5044 §7, RFC 6581): the initiator sends the MPA Request, the
 * responder's ULP accepts or rejects it, the Reply settles Markers, CRCs, IRD/ORD and the model, and both enter
 * Full Operation on an {@link MpaStream}. The startup phase runs on the manager's loops too ({@link MpaStartup}:
 * non-blocking, within a deadline): listening, connecting and a thousand connections in startup take no thread of
 * their own; the responder sends nothing in Full Operation before it received an FPDU (§7.1.2 rule 4), and in
 * peer-to-peer mode that FPDU is the initiator's RTR (RFC 6581 §5).
 *
 * <p>Streams in Full Operation live on the manager's loops ({@link Progress}): each loop's selector watches the
 * sockets of many streams, which are spread over the loops as they are made.
 *
 * <p>The manager wires its parts and keeps what they share: the connections accepted, in startup and in Full
 * Operation, the memory limit over them all, and the refusals it reports. An {@link MpaAcceptor} per listener takes
 * its connections within the limits on connections in startup; the {@link MpaResponderStartup} answers their
 * Requests as the ULP says, the {@link MpaInitiatorStartup} makes the connections asked for; both hand them to
 * {@link #attach} for Full Operation.
 */
public final class MpaConnectionManager implements ConnectionManager {
    /** IPv4's header and TCP's, without options; IPv6's header is 40 octets, not 20. */
    private static final int IP_AND_TCP_HEADERS = 40;
    private static final int IPV6_AND_TCP_HEADERS = 60;
    private static final int TCP_TIMESTAMPS = 12;
    /**
     * The largest DSS option Linux puts on an MPTCP segment (RFC 8684 §3.3: its header, a 64-bit Data ACK and a
     * mapping with a 64-bit data sequence number and the checksum): beside the timestamps it fills TCP's 40 octets of
     * options.
     */
    private static final int MPTCP_DSS = 28;
    static final int LARGEST_IP_PACKET = 65535;
    /** IPv4's smallest MTU every host must take (RFC 791): the smallest {@link MpaOptions#mtu()}. */
    static final int SMALLEST_MTU = 576;
    /** Connections the kernel queues for a listener until its loop takes them (capped by net.core.somaxconn). */
    private static final int BACKLOG = 1024;

    private final MpaOptions mpa;
    final InetAddress localAddress;
    final Set<ServerSocketChannel> servers = ConcurrentHashMap.newKeySet();
    /** Connections in startup (on the loops): closed with the manager. */
    final Set<MpaStartup> startups = ConcurrentHashMap.newKeySet();
    /** Connections accepted whose startup has yet to begin on their loop. */
    final java.util.concurrent.atomic.AtomicInteger accepting = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.Map<MpaStream, Loop> streams = new ConcurrentHashMap<>();
    /** Who may hold a responder connection in startup: per address, and which silent one makes room. */
    final StartupAdmission admission;
    final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicReference<Refusal> lastRefusal = new AtomicReference<>();
    /** Connections set up and refused, at DEBUG ({@code org.rddp.transport.mpa}): quiet unless asked for. */
    private static final System.Logger LOG = System.getLogger("org.rddp.transport.mpa");
    private volatile Consumer<Refusal> refusals = refusal -> { };
    private final Loop[] loops;
    private final java.util.concurrent.atomic.AtomicInteger nextLoop = new java.util.concurrent.atomic.AtomicInteger();
    private final MpaInitiatorStartup initiator;
    private final MpaResponderStartup responder;
    /** Its counters, its queue pairs and its MBean. */
    private final ManagedQueuePairs managed;

    /** A manager running MPA as {@code mpa} says, connecting from {@code localAddress}, on one loop of its own. */
    public MpaConnectionManager(MpaOptions mpa, InetAddress localAddress) {
        this(mpa, localAddress, Progress.automatic());
    }

    /**
     * A manager running MPA as {@code mpa} says, connecting from {@code localAddress}, with its streams on loops
     * driven as {@code progress} says (a manual loop by the calling thread).
     */
    public MpaConnectionManager(MpaOptions mpa, InetAddress localAddress, Progress progress) {
        this.mpa = mpa;
        this.localAddress = localAddress;
        this.admission = new StartupAdmission(mpa);
        this.managed = new ManagedQueuePairs("mpa", localAddress);
        this.loops = progress.open("mpa-loop", SelectorPoller::new);
        this.initiator = new MpaInitiatorStartup(this);
        this.responder = new MpaResponderStartup(this);
    }

    @Override
    public java.util.List<Loop> loops() {
        return java.util.List.of(loops);
    }

    /** The loop the next stream goes to: they take turns. */
    Loop nextLoop() {
        return loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
    }

    /**
     * A stream in Full Operation on {@code startup}'s channel, on {@code loop} (where the startup ran: the stream takes
     * over its registration), attached to {@code qp}. Loop thread.
     */
    void attach(QueuePair qp, MpaStartup startup, Loop loop, LlpParameters parameters, int mulpdu,
            boolean markersOut, boolean markersIn, boolean crc) throws IOException {
        startup.handOver();
        SocketChannel channel = startup.channel();
        MpaStream stream = new MpaStream(new TcpConnection(channel, mpa.mptcp()), (SelectorPoller) loop.poller(),
                parameters, mulpdu, markersOut, markersIn, crc, mpa, managed.counters(), streams::remove);
        streams.put(stream, loop);
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: connection with {1} in Full Operation (markers {2}/{3}, CRC {4}, "
                    + "IRD {5}, ORD {6})", stream, channel.socket().getRemoteSocketAddress(), markersOut ? "out" : "-",
                    markersIn ? "in" : "-", crc ? "on" : "off", parameters.ird(), parameters.ord());
        }
        managed.attach(qp, stream, loop);
    }

    /** The options every connection runs with. */
    public MpaOptions options() {
        return mpa;
    }

    /**
     * Why the last incoming connection was refused before its Request reached the ULP (a malformed Request, a
     * peer that is not speaking MPA, a timeout), or null: there is no one else to tell.
     */
    public String lastRefusal() {
        Refusal last = lastRefusal.get();
        return last == null ? null : last.reason();
    }

    /**
     * An incoming connection refused before its Request reached the ULP.
     *
     * @param peer     where it came from
     * @param reason   why: a malformed Request, a revision this side does not speak, a peer not speaking MPA, a timeout
     * @param mpaPeer  whether the peer spoke MPA (its Request began with the Request key): a client this side could not
     *                 serve, rather than a stranger (a port scan, a stray connection, a reset, silence)
     */
    public record Refusal(SocketAddress peer, String reason, boolean mpaPeer) {
    }

    /**
     * Hands every refusal to {@code listener} from now on, on the thread that read the Request: a server that waits
     * for its one client ends the wait on an MPA peer it cannot serve, and notes strangers and goes on waiting.
     */
    public void onRefusal(Consumer<Refusal> listener) {
        refusals = listener;
    }

    /**
     * The MULPDU of a connection from {@code local} (RFC 5044 §4.5), from the EMSS its interface allows (IPv4's or
     * IPv6's header, TCP's with timestamps): every FPDU then fits one TCP segment.
     */
    public static int mulpdu(InetAddress local, boolean markers) {
        return mulpdu(local, markers, 0);
    }

    /** {@link #mulpdu(InetAddress, boolean)} for a path MTU of {@code pathMtu} octets; 0 takes the interface's. */
    public static int mulpdu(InetAddress local, boolean markers, int pathMtu) {
        return mulpdu(local, markers, pathMtu, false);
    }

    /**
     * {@link #mulpdu(InetAddress, boolean, int)} on a Multipath TCP connection if {@code mptcp}, whose segments carry
     * the DSS option too.
     */
    public static int mulpdu(InetAddress local, boolean markers, int pathMtu, boolean mptcp) {
        int headers = (local instanceof java.net.Inet6Address ? IPV6_AND_TCP_HEADERS : IP_AND_TCP_HEADERS)
                + TCP_TIMESTAMPS + (mptcp ? MPTCP_DSS : 0);
        if (pathMtu > 0) {
            return MpaFpdu.mulpdu(pathMtu - headers, markers);
        }
        int mtu = 1500;
        try {
            NetworkInterface via = NetworkInterface.getByInetAddress(local);
            if (via != null && via.getMTU() > 0) {
                mtu = Math.min(via.getMTU(), LARGEST_IP_PACKET);
            }
        } catch (SocketException e) {
            // Ethernet's MTU, the common case
        }
        return MpaFpdu.mulpdu(mtu - headers, markers);
    }

    @Override
    public Listener listen(SocketAddress address, Consumer<ConnectionRequest> handler) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            if (mpa.mptcp()) {
                Mptcp.bind(server, address, BACKLOG);
            } else {
                server.bind(address, BACKLOG);
            }
            server.configureBlocking(false);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        servers.add(server);
        InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
        Loop loop = nextLoop();
        MpaAcceptor acceptor = new MpaAcceptor(this, responder, server, loop, handler);
        loop.execute(acceptor::start);
        return new Listener() {
            @Override
            public SocketAddress address() {
                return bound;
            }

            @Override
            public void close() {
                servers.remove(server);
                closeQuietly(server); // at once, from any thread: the port is free; the loop forgets it next
                loop.execute(acceptor::stop);
            }
        };
    }

    /**
     * Why one more connection would take more buffers than {@link MpaOptions#memoryLimit} allows, or null: each
     * connection, from its accept or connect on, counts for {@link MpaOptions#BUFFER_OCTETS_PER_CONNECTION}.
     */
    String overMemory() {
        long connections = (long) streams.size() + startups.size() + accepting.get();
        if (connections < mpa.connectionsInMemory()) {
            return null;
        }
        return "the memory limit: " + mpa.memoryLimit() + " octets of buffers hold " + mpa.connectionsInMemory()
                + " connections of " + MpaOptions.BUFFER_OCTETS_PER_CONNECTION + " octets, and " + connections
                + " are open or opening (MpaOptions.withMemoryLimit)";
    }

    /** Records and reports a connection refused before its Request reached the ULP. */
    void refuse(SocketAddress peer, Exception e) {
        counting().increment(Counter.CONNECTIONS_REFUSED);
        if (e instanceof MalformedFrameException || e instanceof SocketTimeoutException) {
            counting().increment(Counter.MALFORMED_SETUPS);
        }
        Refusal refusal = new Refusal(peer, describe(e, "Request"), e instanceof MalformedFrameException malformed
                && malformed.status() != DecodeStatus.MPA_BAD_KEY
                && malformed.status() != DecodeStatus.MPA_FRAME_TRUNCATED);
        lastRefusal.set(refusal);
        LOG.log(System.Logger.Level.DEBUG, "a connection from {0} was refused before the ULP heard of it: {1}", peer,
                refusal);
        refusals.accept(refusal);
    }

    @Override
    public CompletableFuture<Connection> connect(QueuePair qp, SocketAddress remote, ConnectOptions options) {
        CompletableFuture<Connection> result = new CompletableFuture<>();
        Loop loop = nextLoop();
        loop.execute(() -> initiator.initiate(qp, loop, (InetSocketAddress) remote, options, false, result));
        return result;
    }

    static void requireIdle(QueuePair qp) {
        if (qp.state() != QpState.IDLE || qp.stream() != null) {
            throw new IllegalStateException("queue pair " + qp.number() + " is " + qp.state()
                    + ", connection setup needs it IDLE");
        }
    }


    static String describe(Exception e, String frame) {
        if (e instanceof MalformedFrameException malformed && malformed.status() == DecodeStatus.MPA_BAD_KEY) {
            return "the peer is not speaking MPA: " + malformed.getMessage();
        }
        if (e instanceof MalformedFrameException) {
            return "malformed MPA " + frame + ": " + e.getMessage();
        }
        return e.getMessage();
    }

    static void closeQuietly(java.nio.channels.Channel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Connections of this manager that are up. */
    public int connectionCount() {
        return streams.size();
    }

    /**
     * Stops listening, aborts every connection this manager set up (their queue pairs see it lost) and stops its
     * loops. A manual loop is stopped at once when its own thread closes the manager.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (ServerSocketChannel server : servers) {
            closeQuietly(server);
        }
        for (MpaStartup startup : startups) {
            startup.loop().execute(() -> startup.fail(new IOException("the connection manager closed")));
        }
        streams.forEach((stream, loop) -> loop.execute(stream::abort));
        for (Loop loop : loops) {
            loop.close(); // runs the aborts queued above first
        }
        managed.close();
    }

    /** The counters its parts count into. */
    Counters counting() {
        return managed.counters();
    }

    @Override
    public java.util.Map<Counter, Long> counters() {
        return managed.counters().snapshot();
    }

    @Override
    public java.util.List<QpStatistics> statistics() {
        return managed.statistics();
    }
}
