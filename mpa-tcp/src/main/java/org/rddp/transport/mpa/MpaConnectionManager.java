package org.rddp.transport.mpa;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.rddp.ddp.DdpSegment;
import org.rddp.verbs.QpState;
import org.rddp.error.MpaError;
import org.rddp.llp.LlpParameters;
import org.rddp.rdmap.RtrType;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.mpa.MpaFpdu;
import org.rddp.mpa.MpaFramer;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Counter;
import org.rddp.verbs.Counters;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.QueuePair;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;

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
 */
public final class MpaConnectionManager implements ConnectionManager {
    private static final int IP_AND_TCP_HEADERS = 40;
    private static final int TCP_TIMESTAMPS = 12;
    static final int LARGEST_IP_PACKET = 65535;
    /** IPv4's smallest MTU every host must take (RFC 791): the smallest {@link MpaOptions#mtu()}. */
    static final int SMALLEST_MTU = 576;
    /** Connections the kernel queues for a listener until its loop takes them (capped by net.core.somaxconn). */
    private static final int BACKLOG = 1024;
    /** Connections a listener takes from the kernel's backlog per duty cycle of its loop. */
    private static final int ACCEPTS_PER_CYCLE = 64;

    private final MpaOptions mpa;
    private final InetAddress localAddress;
    private final Set<ServerSocketChannel> servers = ConcurrentHashMap.newKeySet();
    /** Connections in startup (on the loops): closed with the manager. */
    private final Set<MpaStartup> startups = ConcurrentHashMap.newKeySet();
    /** Connections accepted whose startup has yet to begin on their loop. */
    private final java.util.concurrent.atomic.AtomicInteger accepting = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.Map<MpaStream, Loop> streams = new ConcurrentHashMap<>();
    /** Who may hold a responder connection in startup: per address, and which silent one makes room. */
    private final StartupAdmission admission;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicReference<Refusal> lastRefusal = new AtomicReference<>();
    /** Connections set up and refused, at DEBUG ({@code org.rddp.transport.mpa}): quiet unless asked for. */
    private static final System.Logger LOG = System.getLogger("org.rddp.transport.mpa");
    private volatile Consumer<Refusal> refusals = refusal -> { };
    private final Loop[] loops;
    private final java.util.concurrent.atomic.AtomicInteger nextLoop = new java.util.concurrent.atomic.AtomicInteger();

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
        this.loops = progress.open("mpa-loop", SelectorPoller::new);
    }

    @Override
    public java.util.List<Loop> loops() {
        return java.util.List.of(loops);
    }

    /** The loop the next stream goes to: they take turns. */
    private Loop nextLoop() {
        return loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
    }

    /**
     * A stream in Full Operation on {@code startup}'s channel, on {@code loop} (where the startup ran: the stream takes
     * over its registration), attached to {@code qp}. Loop thread.
     */
    private void attach(QueuePair qp, MpaStartup startup, Loop loop, LlpParameters parameters, int mulpdu,
            boolean markersOut, boolean markersIn, boolean crc) throws IOException {
        startup.handOver();
        SocketChannel channel = startup.channel();
        MpaStream stream = new MpaStream(channel, (SelectorPoller) loop.poller(), parameters, mulpdu, markersOut,
                markersIn, crc, mpa, streams::remove);
        streams.put(stream, loop);
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: connection with {1} in Full Operation (markers {2}/{3}, CRC {4}, "
                    + "IRD {5}, ORD {6})", stream, channel.socket().getRemoteSocketAddress(), markersOut ? "out" : "-",
                    markersIn ? "in" : "-", crc ? "on" : "off", parameters.ird(), parameters.ord());
        }
        qp.attach(stream, loop);
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
     * The MULPDU of a connection from {@code local} (RFC 5044 §4.5), from the EMSS its interface allows: every
     * FPDU then fits one TCP segment.
     */
    public static int mulpdu(InetAddress local, boolean markers) {
        return mulpdu(local, markers, 0);
    }

    /** {@link #mulpdu(InetAddress, boolean)} for a path MTU of {@code pathMtu} octets; 0 takes the interface's. */
    public static int mulpdu(InetAddress local, boolean markers, int pathMtu) {
        if (pathMtu > 0) {
            return MpaFpdu.mulpdu(pathMtu - IP_AND_TCP_HEADERS - TCP_TIMESTAMPS, markers);
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
        return MpaFpdu.mulpdu(mtu - IP_AND_TCP_HEADERS - TCP_TIMESTAMPS, markers);
    }

    @Override
    public Listener listen(SocketAddress address, Consumer<ConnectionRequest> handler) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, BACKLOG);
            server.configureBlocking(false);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        servers.add(server);
        InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
        Acceptor acceptor = new Acceptor(server, nextLoop(), handler);
        acceptor.loop.execute(acceptor::start);
        return new Listener() {
            @Override
            public SocketAddress address() {
                return bound;
            }

            @Override
            public void close() {
                servers.remove(server);
                closeQuietly(server); // at once, from any thread: the port is free; the loop forgets it next
                acceptor.loop.execute(acceptor::stop);
            }
        };
    }

    /** A listener's socket on its loop, which takes its connections as they come. Loop thread. */
    private final class Acceptor implements SelectorPoller.Handler {
        private final ServerSocketChannel server;
        private final Loop loop;
        private final Consumer<ConnectionRequest> handler;
        private boolean watching;

        Acceptor(ServerSocketChannel server, Loop loop, Consumer<ConnectionRequest> handler) {
            this.server = server;
            this.loop = loop;
            this.handler = handler;
        }

        void start() {
            try {
                ((SelectorPoller) loop.poller()).watch(server, SelectionKey.OP_ACCEPT, this);
                watching = true;
            } catch (IOException e) {
                servers.remove(server); // closed before its loop got to it
            }
        }

        void stop() {
            if (watching) {
                watching = false;
                ((SelectorPoller) loop.poller()).unwatch();
            }
            closeQuietly(server);
        }

        @Override
        public int ready(int readyOps) {
            return watching ? acceptAll(this) : 0;
        }

        /** Accepting threw (the heap ran out, say): the listener stays, for the connections that come next. */
        @Override
        public void failed(Throwable error) {
            // reported by the poller; nothing of this listener's is broken
        }
    }

    /** Takes the connections waiting on the listener; each starts up on the next loop. The listener's loop. */
    private int acceptAll(Acceptor acceptor) {
        int accepted = 0;
        while (accepted < ACCEPTS_PER_CYCLE) {
            SocketChannel channel;
            try {
                channel = acceptor.server.accept();
            } catch (IOException e) {
                acceptor.stop(); // closed: the listener is gone
                return accepted;
            }
            if (channel == null) {
                return accepted;
            }
            accepted++;
            SocketAddress peer = null;
            String full;
            try {
                peer = channel.getRemoteAddress();
                full = overMemory();
            } catch (IOException e) {
                full = "the connection failed at once: " + e.getMessage();
            }
            InetAddress source = peer instanceof InetSocketAddress address ? address.getAddress() : null;
            if (full == null) {
                full = admission.admit(source);
                if (full == null && startups.size() + accepting.get() >= mpa.maxStartups()) {
                    full = makeRoom();
                    if (full != null) {
                        admission.left(source);
                    }
                }
            }
            if (full != null) {
                try {
                    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                } catch (IOException e) {
                    // reset or not, it goes
                }
                refuse(peer, new IOException(full)); // told before the peer can see the reset
                closeQuietly(channel);
                continue;
            }
            accepting.incrementAndGet();
            Loop loop = nextLoop();
            SocketAddress from = peer;
            loop.execute(() -> receiveRequest(channel, loop, acceptor.handler, from, source));
        }
        return accepted;
    }

    /**
     * Every startup slot is taken: resets a connection still waiting for its Request (the oldest of the address with
     * the most), so that a flood of silent connections cannot keep a client out; null when it did, else why the new
     * connection is refused (every startup has its Request in, waiting for the ULP, or is connecting). The acceptor's
     * loop.
     */
    private String makeRoom() {
        MpaStartup oldest = admission.evictable();
        if (oldest == null) {
            return "too many connections in startup: " + mpa.maxStartups() + " (MpaOptions.withLimits), none of them "
                    + "silent";
        }
        oldest.loop().execute(() -> oldest.evict(new IOException("reset to make room: " + mpa.maxStartups()
                + " connections in startup (MpaOptions.withLimits), and this one the oldest still without a "
                + "Request from the address with the most such")));
        return null;
    }

    /** Responder: reads and checks the Request within the startup timeout, then gives it to the ULP. Its loop. */
    @SuppressWarnings("checkstyle:IllegalCatch") // a handler's bug or a bad frame loses this connection only
    private void receiveRequest(SocketChannel channel, Loop loop, Consumer<ConnectionRequest> handler,
            SocketAddress from, InetAddress source) {
        accepting.decrementAndGet(); // in startups from here on, or refused
        MpaStartup startup = null;
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            startup = new MpaStartup(channel, loop, false, startups, failure -> refuse(from, failure));
            MpaStartup admitted = startup;
            startup.onEnd(() -> {
                admission.spoke(source, admitted);
                admission.left(source);
            });
            admission.waiting(source, startup);
            startup.expect(MpaStartupFrame.Kind.REQUEST, mpa.startupTimeout(), request -> {
                admission.spoke(source, admitted); // no longer one to make room
                if (request.revision() > mpa.revision()) {
                    // an RFC 5044 responder cannot interoperate with revision 2: it closes (§7.1.2 rule 9)
                    throw new MalformedFrameException(DecodeStatus.MPA_BAD_REVISION, "revision " + request.revision()
                            + " but this side speaks revision " + mpa.revision() + " only");
                }
                if (streams.size() >= mpa.maxConnections()) {
                    IOException full = new IOException("too many connections: " + mpa.maxConnections()
                            + " in Full Operation (MpaOptions.withLimits); the Request was rejected");
                    refuse(from, full); // told before the peer can read the rejection
                    admitted.onFailure(failure -> { });
                    rejectReply(admitted, request, PrivateData.EMPTY);
                    throw full;
                }
                admitted.onFailure(failure -> { }); // the ULP answers: a later failure is its answer's
                try {
                    handler.accept(new Request(admitted, loop, from, request));
                } catch (RuntimeException e) {
                    Counters.callbackFailed(e); // counted, seen; rethrown, it ends the startup: the connection closes
                    throw e;
                }
            });
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            if (startup == null) {
                admission.left(source);
            } else {
                startup.close(false);
            }
            refuse(from, e);
        }
    }

    /**
     * Answers {@code request} with a rejecting Reply, then FIN: a fresh connection's send buffer takes the few octets
     * at once. An enhanced Request is answered in kind (RFC 6581 §10), with no IRD/ORD to quote.
     */
    private void rejectReply(MpaStartup startup, MpaStartupFrame request, PrivateData privateData) {
        EnhancedConnectionData offer = request.enhancedData();
        EnhancedConnectionData answer = offer == null ? null : EnhancedConnectionData.of(offer.peerToPeer(),
                Set.of(), EnhancedConnectionData.NO_NEGOTIATION, EnhancedConnectionData.NO_NEGOTIATION);
        try {
            startup.channel().write(ByteBuffer.wrap(new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, mpa.markers(),
                    mpa.crc(), true, Math.min(request.revision(), mpa.revision()), answer, privateData)
                    .toByteArray()));
            startup.channel().shutdownOutput(); // this ULP has no use for the TCP connection
        } catch (IOException | IllegalArgumentException e) {
            // the initiator sees the connection close instead
        }
    }

    /**
     * Why one more connection would take more buffers than {@link MpaOptions#memoryLimit} allows, or null: each
     * connection, from its accept or connect on, counts for {@link MpaOptions#BUFFER_OCTETS_PER_CONNECTION}.
     */
    private String overMemory() {
        long connections = (long) streams.size() + startups.size() + accepting.get();
        if (connections < mpa.connectionsInMemory()) {
            return null;
        }
        return "the memory limit: " + mpa.memoryLimit() + " octets of buffers hold " + mpa.connectionsInMemory()
                + " connections of " + MpaOptions.BUFFER_OCTETS_PER_CONNECTION + " octets, and " + connections
                + " are open or opening (MpaOptions.withMemoryLimit)";
    }

    /** Records and reports a connection refused before its Request reached the ULP. */
    private void refuse(SocketAddress peer, Exception e) {
        Counters.increment(Counter.CONNECTIONS_REFUSED);
        if (e instanceof MalformedFrameException || e instanceof SocketTimeoutException) {
            Counters.increment(Counter.MALFORMED_SETUPS);
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
        loop.execute(() -> initiate(qp, loop, (InetSocketAddress) remote, options, false, result));
        return result;
    }

    /** Initiator: connect, Request, Reply, negotiation, Full Operation; within the options' timeout. Its loop. */
    @SuppressWarnings("checkstyle:IllegalCatch") // any failure must end in the future, never vanish
    private void initiate(QueuePair qp, Loop loop, InetSocketAddress remote, ConnectOptions options,
            boolean revision1, CompletableFuture<Connection> result) {
        if (options.peerToPeer() && mpa.revision() < 2) {
            result.completeExceptionally(new IOException("peer-to-peer needs the enhanced setup of MPA revision 2 "
                    + "(RFC 6581 §9.2); this connection manager speaks revision 1 only"));
            return;
        }
        if (closed.get()) {
            result.completeExceptionally(new IOException("the connection manager is closed"));
            return;
        }
        String full = overMemory();
        if (full != null) {
            result.completeExceptionally(new IOException("cannot connect to " + remote + ": " + full));
            return;
        }
        boolean enhanced = options.enhanced() && mpa.revision() >= 2 && !revision1;
        boolean peerToPeer = enhanced && (options.peerToPeer() || mpa.peerToPeer());
        Set<RtrType> rtrTypes = mpa.peerToPeer() ? mpa.rtrTypes() : options.rtrTypes();
        SocketChannel channel = null;
        try {
            requireIdle(qp); // before anything goes on the wire: attach would refuse it only after the Reply
            EnhancedConnectionData offer = enhanced
                    ? EnhancedConnectionData.of(peerToPeer, rtrTypes, options.ird(), options.ord()) : null;
            MpaStartupFrame request = new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, mpa.markers(), mpa.crc(),
                    false, enhanced ? MpaStartupFrame.REVISION_2 : MpaStartupFrame.REVISION_1, offer,
                    options.privateData());
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.bind(new InetSocketAddress(localAddress, 0));
            boolean connected = channel.connect(remote);
            MpaStartup startup = new MpaStartup(channel, loop, !connected, startups,
                    failure -> {
                if (failure instanceof EOFException && enhanced && mpa.retryRevision1()) {
                    initiate(qp, loop, remote, options, true, result); // RFC 6581 §10: an RFC 5044 responder closed
                } else {
                    if (failure instanceof MalformedFrameException || failure instanceof SocketTimeoutException) {
                        Counters.increment(Counter.MALFORMED_SETUPS);
                    }
                    result.completeExceptionally(initiatorFailure(failure, enhanced));
                }
            });
            startup.send(request.toByteArray(), null);
            startup.expect(MpaStartupFrame.Kind.REPLY, options.timeout(), reply -> {
                negotiate(qp, startup, loop, options, request, reply, peerToPeer ? rtrTypes : Set.of(), result);
            });
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            result.completeExceptionally(initiatorFailure(e, enhanced));
        }
    }

    /** What an initiator whose startup failed with {@code e} is told. */
    private static Exception initiatorFailure(Exception e, boolean enhanced) {
        if (e instanceof ConnectionRejectedException) {
            return e;
        }
        if (e instanceof EOFException) {
            return new IOException("the responder closed the connection without an MPA Reply" + (enhanced
                    ? " (an RFC 5044 responder does so on an enhanced request; MpaOptions.withRetryRevision1 "
                            + "retries with revision 1)" : ""), e);
        }
        return e instanceof IOException ? e : new IOException(describe(e, "Reply"), e);
    }

    /** Initiator: checks the Reply against the Request and enters Full Operation (RFC 6581 §9, §10). */
    @SuppressWarnings("checkstyle:IllegalCatch") // any local failure after the Reply is answered with a Terminate
    private void negotiate(QueuePair qp, MpaStartup startup, Loop loop, ConnectOptions options,
            MpaStartupFrame request, MpaStartupFrame reply, Set<RtrType> rtrTypes,
            CompletableFuture<Connection> result) throws IOException {
        SocketChannel channel = startup.channel();
        EnhancedConnectionData answer = reply.enhancedData();
        if (reply.reject()) {
            throw new ConnectionRejectedException("rejected by the peer's ULP", true,
                    answer == null ? -1 : answer.ird(), answer == null ? -1 : answer.ord(), reply.privateData());
        }
        if (request.enhanced() != reply.enhanced()) {
            throw new IOException(request.enhanced()
                    ? "the responder answered an enhanced Request without the enhanced data (RFC 6581 §10 makes "
                            + "an enhanced responder answer in kind)"
                    : "the responder answered a revision 1 Request with enhanced data (RFC 6581 §10 forbids it)");
        }
        boolean crc = mpa.crc() || reply.crc();
        boolean markersOut = reply.markers();
        int ird = options.ird();
        int ord = options.ord();
        RtrType rtr = RtrType.NONE;
        if (answer != null) {
            int[] settled = IrdOrdNegotiation.settle(options.ird(), options.ord(), answer.ird(), answer.ord());
            if (settled[0] < 0) {
                terminate(startup, MpaError.INSUFFICIENT_IRD, markersOut, crc); // RFC 6581 §9.1
                throw new ConnectionRejectedException("insufficient IRD: the responder's ORD " + answer.ord()
                        + " exceeds this side's IRD " + options.ird(), false, answer.ird(), answer.ord(),
                        reply.privateData());
            }
            ird = settled[0];
            ord = settled[1];
            if (!rtrTypes.isEmpty()) {
                Set<RtrType> common = EnumSet.noneOf(RtrType.class);
                common.addAll(answer.rtrTypes());
                common.retainAll(rtrTypes);
                rtr = answer.peerToPeer() ? RtrType.preferred(common) : RtrType.NONE;
                if (rtr == RtrType.NONE) {
                    terminate(startup, MpaError.NO_MATCHING_RTR, markersOut, crc); // RFC 6581 §9.2
                    throw new ConnectionRejectedException("no matching RTR: this side sends " + rtrTypes
                            + ", the responder accepts " + answer.rtrTypes(), false, answer.ird(), answer.ord(),
                            reply.privateData());
                }
            }
        }
        LlpParameters parameters = new LlpParameters(ird, ord, rtr, RtrType.NONE, false, DdpSegment.DDP_VERSION,
                RdmapControl.RDMAP_VERSION, options.privateData(), reply.privateData());
        try {
            InetAddress local = ((InetSocketAddress) channel.getLocalAddress()).getAddress();
            attach(qp, startup, loop, parameters, mulpdu(local, markersOut, mpa.mtu()), markersOut, mpa.markers(),
                    crc);
        } catch (IOException | RuntimeException e) {
            // any other local failure once the Reply is in: Terminate 0x2/0x0/0x05, then reset (RFC 6581 §9.3)
            terminate(startup, MpaError.LOCAL_CATASTROPHIC, markersOut, crc);
            throw new IOException("could not set up the stream after the Reply: " + e.getMessage(), e);
        }
        Connection.establish(qp, parameters, result);
    }

    /**
     * Sends a Terminate FPDU with no headers, as Full Operation frames it, then closes the connection (a fresh
     * connection's send buffer takes the few octets at once: whatever it does not take is lost with the connection).
     */
    private static void terminate(MpaStartup startup, MpaError cause, boolean markers, boolean crc) {
        byte[] message = TerminateHeader.bareMessage(cause);
        MpaFramer framer = new MpaFramer(markers, crc);
        ByteBuffer fpdu = ByteBuffer.allocate(framer.wireLength(message.length));
        framer.frame(ByteBuffer.wrap(message), fpdu);
        try {
            startup.channel().write(fpdu.flip());
            startup.channel().shutdownOutput();
        } catch (IOException e) {
            // the connection is being given up anyway
        }
        startup.close(false);
    }

    private static void requireIdle(QueuePair qp) {
        if (qp.state() != QpState.IDLE || qp.stream() != null) {
            throw new IllegalStateException("queue pair " + qp.number() + " is " + qp.state()
                    + ", connection setup needs it IDLE");
        }
    }


    private static String describe(Exception e, String frame) {
        if (e instanceof MalformedFrameException malformed && malformed.status() == DecodeStatus.MPA_BAD_KEY) {
            return "the peer is not speaking MPA: " + malformed.getMessage();
        }
        if (e instanceof MalformedFrameException) {
            return "malformed MPA " + frame + ": " + e.getMessage();
        }
        return e.getMessage();
    }

    private static void closeQuietly(java.nio.channels.Channel channel) {
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
    }

    /** A Request waiting for the ULP; its connection waits on its loop, read no further. */
    private final class Request implements ConnectionRequest {
        private final MpaStartup startup;
        private final Loop loop;
        private final SocketAddress peer;
        private final MpaStartupFrame request;
        private final EnhancedConnectionData offer;
        private final AtomicBoolean answered = new AtomicBoolean();

        Request(MpaStartup startup, Loop loop, SocketAddress peer, MpaStartupFrame request) {
            this.startup = startup;
            this.loop = loop;
            this.peer = peer;
            this.request = request;
            this.offer = request.enhancedData();
        }

        @Override
        public SocketAddress remoteAddress() {
            return peer;
        }

        @Override
        public PrivateData privateData() {
            return request.privateData();
        }

        @Override
        public EnhancedConnectionData enhancedData() {
            return offer;
        }

        @Override
        @SuppressWarnings("checkstyle:IllegalCatch") // any failure must end in the future, never vanish
        public CompletableFuture<Connection> accept(QueuePair qp, AcceptOptions options) {
            once();
            CompletableFuture<Connection> result = new CompletableFuture<>();
            loop.execute(() -> {
                startup.onFailure(result::completeExceptionally);
                try {
                    accepted(qp, options, result);
                } catch (IOException | RuntimeException e) {
                    startup.fail(e);
                }
            });
            if (!loop.running()) {
                result.completeExceptionally(new IOException("the connection manager is closed"));
            }
            return result;
        }

        private void accepted(QueuePair qp, AcceptOptions options, CompletableFuture<Connection> result)
                throws IOException {
            if (!startup.channel().isOpen()) {
                throw new IOException("the connection closed before it was accepted");
            }
            requireIdle(qp); // no accepting Reply for a queue pair that cannot take the connection
            int ird = options.ird();
            int ord = options.ord();
            RtrType rtr = RtrType.NONE;
            EnhancedConnectionData answer = null;
            if (offer != null) {
                if (offer.peerToPeer()) {
                    Set<RtrType> common = EnumSet.noneOf(RtrType.class);
                    common.addAll(offer.rtrTypes());
                    common.retainAll(mpa.rtrTypes());
                    rtr = RtrType.preferred(common);
                    if (rtr == RtrType.NONE) {
                        rtr = RtrType.preferred(mpa.rtrTypes()); // none requested fits: propose one (§9.2)
                    }
                }
                IrdOrdNegotiation.Answer settled = IrdOrdNegotiation.respond(offer.ird(), offer.ord(), options.ird(),
                        options.ord(), rtr == RtrType.READ);
                ird = settled.ird();
                ord = settled.ord();
                // one RTR flag, so that the first FPDU to expect is known (the SHOULD of RFC 6581 §9.2 to set every
                // supported requested type is not followed; "at least one" is)
                answer = EnhancedConnectionData.of(offer.peerToPeer(), rtr == RtrType.NONE ? Set.of() : Set.of(rtr),
                        settled.replyIrd(), settled.replyOrd());
            }
            // C: this side's preference, or the initiator's when it asked (RFC 5044 §7.1.1: CRCs are then used
            // anyway); saying so keeps initiators that insist on seeing C in the Reply (siw's mpa_crc_required)
            MpaStartupFrame reply = new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, mpa.markers(),
                    mpa.crc() || request.crc(), false, Math.min(request.revision(), mpa.revision()), answer,
                    options.privateData());
            LlpParameters parameters = new LlpParameters(ird, ord, RtrType.NONE, rtr, true, DdpSegment.DDP_VERSION,
                    RdmapControl.RDMAP_VERSION, options.privateData(), request.privateData());
            InetAddress local = ((InetSocketAddress) startup.channel().getLocalAddress()).getAddress();
            int mulpdu = mulpdu(local, request.markers(), mpa.mtu());
            startup.send(reply.toByteArray(), () -> {
                try {
                    attach(qp, startup, loop, parameters, mulpdu, request.markers(), mpa.markers(),
                            mpa.crc() || request.crc());
                } catch (IOException e) {
                    startup.fail(e);
                    return;
                }
                Connection.establish(qp, parameters, result);
            });
        }

        @Override
        public void reject(PrivateData privateData) {
            once();
            loop.execute(() -> {
                rejectReply(startup, request, privateData);
                startup.close(false);
            });
        }

        private void once() {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("the request was already answered");
            }
        }
    }
}
