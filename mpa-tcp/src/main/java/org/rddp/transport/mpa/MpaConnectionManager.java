package org.rddp.transport.mpa;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.rddp.ddp.DdpSegment;
import org.rddp.verbs.QpState;
import org.rddp.error.MpaError;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.RtrType;
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
 * Full Operation on an {@link MpaStream}. The startup phase runs on blocking sockets with timeouts, on setup
 * threads; the responder sends nothing in Full Operation before it received an FPDU (§7.1.2 rule 4), and in
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

    private final MpaOptions mpa;
    private final InetAddress localAddress;
    private final ExecutorService setup = Executors.newCachedThreadPool(Thread.ofPlatform().daemon(true)
            .name("mpa-setup-", 0).factory());
    private final Set<ServerSocketChannel> servers = ConcurrentHashMap.newKeySet();
    private final java.util.Map<MpaStream, Loop> streams = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicReference<Refusal> lastRefusal = new AtomicReference<>();
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

    /** A stream in Full Operation on {@code channel}, on the next loop, attached to {@code qp}. */
    private void attach(QueuePair qp, SocketChannel channel, LlpParameters parameters, int mulpdu,
            boolean markersOut, boolean markersIn, boolean crc) throws IOException {
        Loop loop = nextLoop();
        MpaStream stream = new MpaStream(channel, (SelectorPoller) loop.poller(), parameters, mulpdu, markersOut,
                markersIn, crc, streams::remove);
        streams.put(stream, loop);
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
            server.bind(address, 64);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        servers.add(server);
        InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
        Thread.ofPlatform().daemon().name("mpa-listen-" + bound.getPort()).start(() -> {
            while (server.isOpen()) {
                try {
                    SocketChannel accepted = server.accept();
                    setup.execute(() -> receiveRequest(accepted, handler));
                } catch (IOException | java.util.concurrent.RejectedExecutionException e) {
                    return; // closed
                }
            }
        });
        return new Listener() {
            @Override
            public SocketAddress address() {
                return bound;
            }

            @Override
            public void close() {
                servers.remove(server);
                closeQuietly(server);
            }
        };
    }

    /** Responder: reads and checks the Request, then gives it to the ULP. Setup thread. */
    @SuppressWarnings("checkstyle:IllegalCatch") // a handler's bug or a bad frame loses this connection only
    private void receiveRequest(SocketChannel channel, Consumer<ConnectionRequest> handler) {
        SocketAddress peer = null;
        try {
            peer = channel.getRemoteAddress();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            MpaStartupFrame request = readFrame(channel, MpaStartupFrame.Kind.REQUEST, mpa.startupTimeout());
            if (request.revision() > mpa.revision()) {
                // an RFC 5044 responder cannot interoperate with revision 2: it closes (§7.1.2 rule 9)
                throw new MalformedFrameException(DecodeStatus.MPA_BAD_REVISION, "revision " + request.revision()
                        + " but this side speaks revision " + mpa.revision() + " only");
            }
            handler.accept(new Request(channel, request));
        } catch (IOException | MalformedFrameException | RuntimeException e) {
            closeQuietly(channel);
            Refusal refusal = new Refusal(peer, describe(e, "Request"), e instanceof MalformedFrameException malformed
                    && malformed.status() != DecodeStatus.MPA_BAD_KEY
                    && malformed.status() != DecodeStatus.MPA_FRAME_TRUNCATED);
            lastRefusal.set(refusal);
            refusals.accept(refusal);
        }
    }

    @Override
    public CompletableFuture<Connection> connect(QueuePair qp, SocketAddress remote, ConnectOptions options) {
        CompletableFuture<Connection> result = new CompletableFuture<>();
        setup.execute(() -> initiate(qp, (InetSocketAddress) remote, options, false, result));
        return result;
    }

    /** Initiator: Request, Reply, negotiation, Full Operation. Setup thread. */
    @SuppressWarnings("checkstyle:IllegalCatch") // any failure must end in the future, never vanish
    private void initiate(QueuePair qp, InetSocketAddress remote, ConnectOptions options, boolean revision1,
            CompletableFuture<Connection> result) {
        if (options.peerToPeer() && mpa.revision() < 2) {
            result.completeExceptionally(new IOException("peer-to-peer needs the enhanced setup of MPA revision 2 "
                    + "(RFC 6581 §9.2); this connection manager speaks revision 1 only"));
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
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.bind(new InetSocketAddress(localAddress, 0));
            channel.socket().connect(remote, (int) Math.max(1, options.timeout().toMillis()));
            write(channel, request.toByteArray());
            MpaStartupFrame reply;
            try {
                reply = readFrame(channel, MpaStartupFrame.Kind.REPLY, options.timeout());
            } catch (EOFException e) {
                closeQuietly(channel);
                if (enhanced && mpa.retryRevision1()) {
                    initiate(qp, remote, options, true, result); // RFC 6581 §10: an RFC 5044 responder closed
                    return;
                }
                throw new IOException("the responder closed the connection without an MPA Reply" + (enhanced
                        ? " (an RFC 5044 responder does so on an enhanced request; MpaOptions.withRetryRevision1 "
                                + "retries with revision 1)" : ""), e);
            }
            negotiate(qp, channel, options, request, reply, peerToPeer ? rtrTypes : Set.of(), result);
        } catch (ConnectionRejectedException e) {
            closeQuietly(channel);
            result.completeExceptionally(e);
        } catch (IOException | MalformedFrameException | RuntimeException e) {
            closeQuietly(channel);
            result.completeExceptionally(e instanceof IOException ? e : new IOException(describe(e, "Reply"), e));
        }
    }

    /** Initiator: checks the Reply against the Request and enters Full Operation (RFC 6581 §9, §10). */
    private void negotiate(QueuePair qp, SocketChannel channel, ConnectOptions options, MpaStartupFrame request,
            MpaStartupFrame reply, Set<RtrType> rtrTypes, CompletableFuture<Connection> result) throws IOException {
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
                terminate(channel, MpaError.INSUFFICIENT_IRD, markersOut, crc); // RFC 6581 §9.1
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
                    terminate(channel, MpaError.NO_MATCHING_RTR, markersOut, crc); // RFC 6581 §9.2
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
            attach(qp, channel, parameters, mulpdu(local, markersOut, mpa.mtu()), markersOut, mpa.markers(), crc);
        } catch (IOException e) {
            // any other local failure once the Reply is in: Terminate 0x2/0x0/0x05, then reset (RFC 6581 §9.3)
            terminate(channel, MpaError.LOCAL_CATASTROPHIC, markersOut, crc);
            throw new IOException("could not set up the stream after the Reply: " + e.getMessage(), e);
        }
        Connection.establish(qp, parameters, result);
    }

    /** Sends a Terminate FPDU with no headers, as Full Operation frames it, then closes the connection. */
    private static void terminate(SocketChannel channel, MpaError cause, boolean markers, boolean crc) {
        byte[] message = TerminateHeader.bareMessage(cause);
        MpaFramer framer = new MpaFramer(markers, crc);
        ByteBuffer fpdu = ByteBuffer.allocate(framer.wireLength(message.length));
        framer.frame(ByteBuffer.wrap(message), fpdu);
        try {
            write(channel, fpdu.array());
            channel.shutdownOutput();
        } catch (IOException e) {
            // the connection is being given up anyway
        }
        closeQuietly(channel);
    }

    private static void requireIdle(QueuePair qp) {
        if (qp.state() != QpState.IDLE || qp.stream() != null) {
            throw new IllegalStateException("queue pair " + qp.number() + " is " + qp.state()
                    + ", connection setup needs it IDLE");
        }
    }


    /**
     * Reads one startup frame, exactly: nothing of Full Operation follows it before the peer hears from this
     * side. Fails on a wrong key (a peer not speaking MPA), a bad revision or PD_Length, a timeout, the end of
     * the stream before the first octet (an {@link EOFException}) or within the frame (a truncated frame).
     */
    private static MpaStartupFrame readFrame(SocketChannel channel, MpaStartupFrame.Kind kind, Duration timeout)
            throws IOException, MalformedFrameException {
        long deadline = System.nanoTime() + timeout.toNanos();
        java.net.Socket socket = channel.socket();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] header = new byte[MpaStartupFrame.HEADER_LENGTH];
        String name = kind == MpaStartupFrame.Kind.REQUEST ? "Request" : "Reply";
        try {
            socket.setSoTimeout(remainingMillis(deadline));
            int first = in.read();
            if (first < 0) {
                throw new EOFException("the peer closed the connection without an MPA " + name);
            }
            header[0] = (byte) first;
            readFully(socket, in, header, 1, header.length - 1, "header", deadline);
            int length = MpaStartupFrame.frameLength(ByteBuffer.wrap(header), kind);
            byte[] frame = java.util.Arrays.copyOf(header, length);
            readFully(socket, in, frame, header.length, length - header.length, "private data", deadline);
            return MpaStartupFrame.decode(ByteBuffer.wrap(frame), kind);
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("no MPA " + name + " within " + timeout.toMillis()
                    + " ms (RFC 5044 §7.1.2 rule 10)");
        }
    }

    /** Milliseconds left until {@code deadline}, at least 1 (0 would mean no timeout at all). */
    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /**
     * Reads the rest of a startup frame whose first octet came, within the frame's deadline (a peer sending an
     * octet at a time cannot stretch it): the end of the stream here is a truncated frame (malformed, RFC 5044
     * §7.1.2 rules 2 and 3), not a peer that closed instead of answering.
     */
    private static void readFully(java.net.Socket socket, DataInputStream in, byte[] into, int offset, int length,
            String part, long deadline) throws IOException, MalformedFrameException {
        int read = 0;
        while (read < length) {
            socket.setSoTimeout(remainingMillis(deadline));
            int n = in.read(into, offset + read, length - read);
            if (n < 0) {
                throw new MalformedFrameException(DecodeStatus.MPA_FRAME_TRUNCATED, "truncated: the connection "
                        + "closed after " + read + " of " + length + " octets of the " + part);
            }
            read += n;
        }
    }

    private static void write(SocketChannel channel, byte[] octets) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(octets);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
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
        setup.shutdown();
        try {
            setup.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        setup.shutdownNow();
        streams.forEach((stream, loop) -> loop.execute(stream::abort));
        for (Loop loop : loops) {
            loop.close(); // runs the aborts queued above first
        }
    }

    /** A Request waiting for the ULP. */
    private final class Request implements ConnectionRequest {
        private final SocketChannel channel;
        private final MpaStartupFrame request;
        private final EnhancedConnectionData offer;
        private final AtomicBoolean answered = new AtomicBoolean();

        Request(SocketChannel channel, MpaStartupFrame request) {
            this.channel = channel;
            this.request = request;
            this.offer = request.enhancedData();
        }

        @Override
        public SocketAddress remoteAddress() {
            try {
                return channel.getRemoteAddress();
            } catch (IOException e) {
                return null;
            }
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
            setup.execute(() -> {
                try {
                    accepted(qp, options, result);
                } catch (IOException | RuntimeException e) {
                    closeQuietly(channel);
                    result.completeExceptionally(e);
                }
            });
            return result;
        }

        private void accepted(QueuePair qp, AcceptOptions options, CompletableFuture<Connection> result)
                throws IOException {
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
            write(channel, reply.toByteArray());
            LlpParameters parameters = new LlpParameters(ird, ord, RtrType.NONE, rtr, true, DdpSegment.DDP_VERSION,
                    RdmapControl.RDMAP_VERSION, options.privateData(), request.privateData());
            InetAddress local = ((InetSocketAddress) channel.getLocalAddress()).getAddress();
            attach(qp, channel, parameters, mulpdu(local, request.markers(), mpa.mtu()), request.markers(),
                    mpa.markers(), mpa.crc() || request.crc());
            Connection.establish(qp, parameters, result);
        }

        @Override
        public void reject(PrivateData privateData) {
            once();
            setup.execute(() -> {
                // an enhanced Request is answered in kind (RFC 6581 §10); the ULP gave no IRD/ORD to quote
                EnhancedConnectionData answer = offer == null ? null : EnhancedConnectionData.of(offer.peerToPeer(),
                        Set.of(), EnhancedConnectionData.NO_NEGOTIATION, EnhancedConnectionData.NO_NEGOTIATION);
                try {
                    write(channel, new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, mpa.markers(), mpa.crc(), true,
                            Math.min(request.revision(), mpa.revision()), answer, privateData).toByteArray());
                    channel.shutdownOutput(); // the Reply, then FIN: this ULP has no use for the TCP connection
                } catch (IOException | IllegalArgumentException e) {
                    // the initiator sees the connection close instead
                }
                closeQuietly(channel);
            });
        }

        private void once() {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("the request was already answered");
            }
        }
    }
}
