package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.io.EpollPoller;
import org.rddp.transport.sctp.io.LoopListening;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.ProtocolParameters;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.io.SharedLoops;
import org.rddp.verbs.Counter;
import org.rddp.verbs.Counters;

/**
 * SCTP in user space: Debian's libusrsctp2 through {@code java.lang.foreign}, as a protocol engine whose packets
 * this package carries (see {@link Links}). One usrsctp stack per process, shared by every {@code UsrsctpStack} of a
 * JVM; {@link #udp()} encapsulates in UDP (RFC 6951, unprivileged), {@link #nativeIp()} sends SCTP straight over IP
 * through a raw socket (so root or CAP_NET_RAW).
 *
 * <p>Every loop has its own UDP socket (or raw socket), read by its own thread: an association lives on the loop
 * whose socket its packets arrive at, the connecting loop's for an association it opened, the listening loop's for
 * one it accepted. The first listening UDP socket of the process takes the process's port ({@link #udpPort()}, fixed
 * with {@code -Drddp.usrsctp.udp-port}), the port a peer in another process is told; the others take free ports.
 *
 * <p>The path MTU is fixed per association (path MTU discovery off), to the MTU of the interface the peer is
 * reached through, so that the largest message that avoids fragmentation is known: RFC 5043 §9 asks the
 * adaptation to advertise exactly that. {@code -Drddp.usrsctp.pmtu=N} sets it (the IP packet size) instead.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
public final class UsrsctpStack implements SctpStack {
    /** System property fixing the path MTU (IP packet size) of every association instead of the interface's. */
    public static final String PATH_MTU_PROPERTY = "rddp.usrsctp.pmtu";
    private static final int IP_HEADER = 20;
    private static final int UDP_HEADER = 8;
    private static final int SCTP_COMMON_HEADER = 12;
    private static final int DATA_CHUNK_HEADER = 16;
    private static final int LARGEST_IP_PACKET = 65535;
    private static final int SOCKET_BUFFER = 4 << 20;
    private static final int MAX_CHUNKS_QUEUED = 512;
    private static final int EADDRINUSE = 98;

    /** System property naming the UDP port for this process's usrsctp stack; a free one is chosen without it. */
    public static final String UDP_PORT_PROPERTY = "rddp.usrsctp.udp-port";

    private static int udpPort = -1;
    private static boolean udpPortBound;
    /** The endpoints of each loop's poller: per local address and role for UDP, one raw socket per loop. */
    private static final Map<EndpointKey, Links.Endpoint> ENDPOINTS = new ConcurrentHashMap<>();

    /** Which endpoint: a loop's poller, a local address (null for raw IP), and whether it is for listening. */
    private record EndpointKey(EpollPoller poller, InetAddress local, boolean listening) {
    }

    private final boolean encapsulated;
    private final int remoteUdpPort;

    private UsrsctpStack(boolean encapsulated, int remoteUdpPort) {
        this.encapsulated = encapsulated;
        this.remoteUdpPort = remoteUdpPort;
    }

    /** Why usrsctp cannot be used here (its library did not load), or null if it can. */
    public static String unavailable() {
        return Usrsctp.unavailable();
    }

    /** SCTP over UDP (RFC 6951) on this process's usrsctp stack, started on first use, to peers in this process. */
    public static UsrsctpStack udp() throws IOException {
        start();
        return new UsrsctpStack(true, 0); // the peer is a listener of this process: its port is looked up
    }

    /**
     * SCTP over UDP to peers whose usrsctp encapsulates on {@code remoteUdpPort} (another process's stack): the
     * initiator must know the responder's UDP port; the responder learns the initiator's (RFC 6951 §5.4).
     */
    public static UsrsctpStack udp(int remoteUdpPort) throws IOException {
        start();
        return new UsrsctpStack(true, remoteUdpPort);
    }

    /** SCTP straight over IP on this process's usrsctp stack; needs root or CAP_NET_RAW for the raw socket. */
    public static UsrsctpStack nativeIp() throws IOException {
        start();
        UsrsctpStack stack = new UsrsctpStack(false, 0);
        stack.rawEndpoint(stack.sharedLoop()); // fails here, clearly, without the privilege
        return stack;
    }

    /**
     * Stops this process's usrsctp stack once every socket is closed ({@code usrsctp_finish} refuses while any
     * exists), trying until {@code timeout}, then closes its UDP and raw sockets. Returns whether it stopped;
     * afterwards no stack can be started again in this process.
     */
    public static synchronized boolean shutdown(java.time.Duration timeout) {
        if (udpPort < 0) {
            return true;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!UsrsctpRuntime.finish()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.onSpinWait(); // sockets still closing: their associations shut down on the timer thread
        }
        udpPort = Integer.MIN_VALUE; // finished for good
        return true; // the endpoints close with their loops
    }

    /** The UDP port this process's first listening socket encapsulates on (RFC 6951): the port to tell peers. */
    public static synchronized int udpPort() {
        return udpPort;
    }

    /** The largest SCTP packet (common header and chunks) this process has sent so far. */
    public static int largestPacketSent() {
        return UsrsctpRuntime.largestPacketSent();
    }

    /** SCTP packets this process's associations have sent so far (for tests and diagnostics). */
    public static long packetsSent() {
        return UsrsctpRuntime.packetsSent();
    }

    /** Starts usrsctp once per process, with the UDP port bound on the wildcard address (a taken port fails). */
    private static synchronized void start() throws IOException {
        if (udpPort >= 0) {
            return;
        }
        if (udpPort == Integer.MIN_VALUE) {
            throw new IOException("the usrsctp stack of this process was shut down");
        }
        String missing = Usrsctp.unavailable();
        if (missing != null) {
            throw new IOException(missing);
        }
        int port = Integer.getInteger(UDP_PORT_PROPERTY, 0);
        if (port == 0) {
            port = freeUdpPort();
        } else {
            try (DatagramSocket probe = new DatagramSocket(port)) {
                probe.getLocalPort(); // free now: the first listener binds it (a taken port fails clearly here)
            } catch (SocketException e) {
                throw new IOException("UDP port " + port + " is taken, and usrsctp needs it for SCTP over UDP "
                        + "(RFC 6951): free it or choose another with -D" + UDP_PORT_PROPERTY + "=PORT", e);
            }
        }
        UsrsctpRuntime.start();
        udpPort = port;
        try {
            // RFC 5043 §10: fewer than 32768 unacknowledged chunks per stream, without relying on ULP flow
            // control. usrsctp blocks a sender once this many chunks of an association are queued or unacked.
            int status = (int) Usrsctp.SET_MAX_CHUNKS_ON_QUEUE.invokeExact(MAX_CHUNKS_QUEUED);
            if (status != 0 || maxChunksInFlight() > DdpSctp.MAX_CHUNKS_IN_FLIGHT_PER_STREAM) {
                throw new IOException("could not bound usrsctp's queued chunks to " + MAX_CHUNKS_QUEUED);
            }
            apply(ProtocolParameters.RDDP);
            Counters.supply(Counter.SCTP_RETRANSMISSIONS, Usrsctp::retransmittedData);
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /** Sets the defaults every association of this process starts with (usrsctp's sysctls, in milliseconds). */
    private static void apply(ProtocolParameters parameters) throws Throwable {
        long[] values = {parameters.rtoMin().toMillis(), parameters.rtoMax().toMillis(),
            parameters.rtoInitial().toMillis(), parameters.associationMaxRetrans(), parameters.pathMaxRetrans(),
            parameters.maxInitRetransmits(), parameters.hbInterval().toMillis()};
        String[] names = {"rto_min_default", "rto_max_default", "rto_initial_default", "assoc_rtx_max_default",
            "path_rtx_max_default", "init_rtx_max_default", "heartbeat_interval_default"};
        for (int i = 0; i < names.length; i++) {
            if (Usrsctp.setSysctl(names[i], values[i]) != 0) {
                throw new IOException("usrsctp refused sctp_" + names[i] + " = " + values[i]);
            }
        }
    }

    /**
     * {@code loop}'s UDP endpoint on {@code local}'s address, for listening or for connecting, opened on first use
     * and held for the caller (who releases it): a listening one on {@link #udpPort()} while no other holds it, the
     * others on free ports. It closes once no socket holds it.
     */
    private static UdpEndpoint udpEndpoint(Loop loop, InetAddress local, boolean listening) throws IOException {
        EpollPoller poller = (EpollPoller) loop.poller();
        EndpointKey key = new EndpointKey(poller, local, listening);
        synchronized (UsrsctpStack.class) {
            UdpEndpoint endpoint = (UdpEndpoint) ENDPOINTS.get(key);
            if (endpoint == null) {
                boolean processPort = listening && !udpPortBound;
                try {
                    endpoint = UdpEndpoint.open(loop, local, processPort ? udpPort : 0, SOCKET_BUFFER,
                            unused -> closeIfUnused(key, unused, processPort));
                } catch (IOException e) {
                    throw processPort ? new IOException("UDP port " + udpPort + " is taken, and usrsctp needs it for "
                            + "SCTP over UDP (RFC 6951): free it or choose another with -D" + UDP_PORT_PROPERTY
                            + "=PORT", e) : e;
                }
                udpPortBound |= processPort;
                ENDPOINTS.put(key, endpoint);
                UdpEndpoint opened = endpoint;
                poller.onClose(() -> closeIfUnused(key, opened, processPort)); // the loop stops: it closes anyway
            }
            endpoint.hold();
            return endpoint;
        }
    }

    /** Closes an endpoint no socket holds, on its loop; the process's port is free again if it had it. */
    private static void closeIfUnused(EndpointKey key, UdpEndpoint endpoint, boolean processPort) {
        synchronized (UsrsctpStack.class) {
            if ((endpoint.holders() == 0 || !key.poller().open()) && ENDPOINTS.remove(key, endpoint)) {
                endpoint.close();
                if (processPort) {
                    udpPortBound = false;
                }
            }
        }
    }

    /** {@code loop}'s raw IP endpoint, opened on first use. */
    private RawIpEndpoint rawEndpoint(Loop loop) throws IOException {
        EpollPoller poller = (EpollPoller) loop.poller();
        EndpointKey key = new EndpointKey(poller, null, false);
        synchronized (UsrsctpStack.class) {
            Links.Endpoint endpoint = ENDPOINTS.get(key);
            if (endpoint == null) {
                endpoint = RawIpEndpoint.open(loop, SOCKET_BUFFER);
                ENDPOINTS.put(key, endpoint);
                poller.onClose(() -> ENDPOINTS.remove(key));
            }
            return (RawIpEndpoint) endpoint;
        }
    }

    /** The most chunks usrsctp keeps queued or unacknowledged per association (so per stream too). */
    public static int maxChunksInFlight() {
        try {
            return (int) Usrsctp.GET_MAX_CHUNKS_ON_QUEUE.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException("usrsctp_sysctl_get_sctp_max_chunks_on_queue failed", e);
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket probe = new DatagramSocket(0)) {
            return probe.getLocalPort();
        } catch (SocketException e) {
            throw new IOException("no free UDP port for usrsctp", e);
        }
    }

    @Override
    public long socketBufferOctets() {
        return 2L * SOCKET_BUFFER;
    }

    @Override
    public String name() {
        return encapsulated ? "usrsctp-udp" : "usrsctp-native";
    }

    @Override
    public Poller newPoller() {
        return new EpollPoller();
    }

    @Override
    public Loop sharedLoop() {
        return SharedLoops.of("usrsctp-loop");
    }

    /** The largest user message that avoids SCTP and IP fragmentation on loopback (RFC 5043 §9). */
    public int maxMessage() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return maxMessage(sctpMtu(loopback, loopback));
    }

    /** The largest message that leaves in one packet of at most {@code sctpMtu} octets. */
    private static int maxMessage(int sctpMtu) {
        return sctpMtu - SCTP_COMMON_HEADER - DATA_CHUNK_HEADER;
    }

    /** The largest SCTP packet (common header and chunks) that avoids IP fragmentation between the two. */
    private int sctpMtu(InetAddress local, InetAddress remote) {
        return (ipMtu(local, remote) - IP_HEADER - (encapsulated ? UDP_HEADER : 0)) & ~3;
    }

    /**
     * The IP MTU towards {@code remote} (null: unknown): the MTU of the interface holding the peer's address if
     * it is this host's, else of the interface holding {@code local}, else the smallest of the interfaces that
     * are up (the wildcard address could use any of them).
     */
    private static int ipMtu(InetAddress local, InetAddress remote) {
        Integer fixed = Integer.getInteger(PATH_MTU_PROPERTY);
        if (fixed != null) {
            return Math.min(fixed, LARGEST_IP_PACKET);
        }
        try {
            NetworkInterface via = remote == null ? null : NetworkInterface.getByInetAddress(remote);
            if (via == null && remote != null && remote.isLoopbackAddress()) {
                via = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
            }
            if (via == null && local != null && !local.isAnyLocalAddress()) {
                via = NetworkInterface.getByInetAddress(local);
            }
            if (via != null && via.getMTU() > 0) {
                return Math.min(via.getMTU(), LARGEST_IP_PACKET);
            }
            int smallest = LARGEST_IP_PACKET;
            for (NetworkInterface candidate : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (candidate.isUp() && !candidate.isLoopback() && candidate.getMTU() > 0) {
                    smallest = Math.min(smallest, candidate.getMTU());
                }
            }
            return smallest;
        } catch (SocketException e) {
            return 1500; // Ethernet's, the common case
        }
    }

    /**
     * A non-blocking {@code usrsctp_connect}: the INIT leaves through the loop's endpoint at once, and the socket's
     * upcall, raised from inside usrsctp as the handshake ends either way, has the loop look at it. Loop thread.
     */
    @Override
    public Connecting connect(Loop loop, InetSocketAddress local, InetSocketAddress remote, int streams,
            int adaptation, Connected done) throws IOException {
        if (!loop.inLoop()) {
            throw new IllegalStateException("a connect starts on the loop it will live on, " + loop);
        }
        RawIpEndpoint raw = encapsulated ? null : rawEndpoint(loop);
        Links.Endpoint endpoint = encapsulated ? udpEndpoint(loop, local.getAddress(), false) : raw;
        int port = 0;
        MemorySegment socket = MemorySegment.NULL;
        Links.Link held = null;
        PendingConnect pending = null;
        boolean started = false;
        try (Arena arena = Arena.ofConfined()) {
            Links.Link link = encapsulated
                    ? Links.udpLink(new InetSocketAddress(remote.getAddress(), remoteUdpPort(remote)), endpoint)
                    : Links.ipLink(remote.getAddress(), raw);
            int mtu = sctpMtu(local.getAddress(), remote.getAddress());
            socket = open(streams, adaptation, mtu);
            MemorySegment state = Usrsctp.captureState(arena);
            if (raw != null) {
                port = bindEphemeral(socket, arena, state, link.handle); // a port this loop's raw socket takes
                raw.own(port);
            } else {
                bind(socket, arena, state, link.handle, 0); // one address: the link's
            }
            Links.hold(link); // released when the socket is freed, or the connect fails
            held = link;
            pending = new PendingConnect(loop, socket, remote, mtu, freeing(endpoint, port, link), done);
            int status = (int) Usrsctp.CONNECT.invokeExact(state, socket, Usrsctp.sockaddrConn(arena, link.handle,
                    remote.getPort()), (int) Usrsctp.SOCKADDR_CONN_SIZE);
            if (status != 0 && Usrsctp.errno(state) != Usrsctp.EINPROGRESS) {
                throw new IOException("SCTP connect to " + remote + " failed, errno " + Usrsctp.errno(state));
            }
            started = true;
            return pending;
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            if (started) {
                // the handshake is under way: the pending connect owns the socket now
            } else if (pending != null) {
                pending.abandon(); // closes the socket, gives back the link and the endpoint
            } else {
                if (!socket.equals(MemorySegment.NULL)) {
                    closeQuietly(socket);
                }
                freeing(endpoint, port, held).run();
            }
        }
    }

    /**
     * A connect waiting for the handshake. Its upcall may come from whichever thread is inside usrsctp (the loop's,
     * reading a packet, or one driving usrsctp's timers): it only queues a look on the loop. Loop thread otherwise.
     */
    private static final class PendingConnect implements Connecting {
        private final Loop loop;
        private final MemorySegment socket;
        private final InetSocketAddress remote;
        private final int mtu;
        private final Runnable onFree;
        private final Connected done;
        private final int id;
        private boolean over;

        PendingConnect(Loop loop, MemorySegment socket, InetSocketAddress remote, int mtu, Runnable onFree,
                Connected done) throws IOException {
            this.loop = loop;
            this.socket = socket;
            this.remote = remote;
            this.mtu = mtu;
            this.onFree = onFree;
            this.done = done;
            this.id = Upcalls.attach(socket, () -> loop.execute(this::look), "connecting");
        }

        /** Whether the handshake ended, and how: established, or the association gone (refused, aborted, lost). */
        private void look() {
            if (over) {
                return;
            }
            int state;
            int streams;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment errno = Usrsctp.captureState(arena);
                MemorySegment status = arena.allocate(Usrsctp.STATUS_SIZE, 8);
                MemorySegment length = Usrsctp.intValue(arena, (int) Usrsctp.STATUS_SIZE);
                int result = (int) Usrsctp.GETSOCKOPT.invokeExact(errno, socket, Usrsctp.IPPROTO_SCTP,
                        Usrsctp.SCTP_STATUS, status, length);
                if (result != 0) {
                    fail(new IOException("SCTP connect to " + remote + " failed: the peer refused or aborted the "
                            + "association, or never answered its INIT (errno " + Usrsctp.errno(errno) + ")"));
                    return;
                }
                state = status.get(JAVA_INT, Usrsctp.STATUS_STATE);
                streams = Math.min(Short.toUnsignedInt(status.get(JAVA_SHORT, Usrsctp.STATUS_INSTRMS)),
                        Short.toUnsignedInt(status.get(JAVA_SHORT, Usrsctp.STATUS_OUTSTRMS)));
            } catch (Throwable e) {
                fail(new IOException("SCTP connect to " + remote + " failed", e));
                return;
            }
            if (state == Usrsctp.SCTP_COOKIE_WAIT || state == Usrsctp.SCTP_COOKIE_ECHOED) {
                return; // still shaking hands: the next upcall looks again
            }
            if (state != Usrsctp.SCTP_ESTABLISHED) {
                fail(new IOException("SCTP connect to " + remote + " failed: the association is in state 0x"
                        + Integer.toHexString(state) + ", not established"));
                return;
            }
            if (streams < 1) {
                fail(new IOException("the association has no stream in one direction (SCTP_STATUS)"));
                return;
            }
            over = true;
            Upcalls.release(id);
            UsrsctpSocket connected;
            try {
                connected = new UsrsctpSocket(socket, streams, maxMessage(mtu), remote, onFree);
            } catch (IOException | RuntimeException e) {
                closeQuietly(socket);
                onFree.run();
                done.done(null, e instanceof IOException io ? io : new IOException(e));
                return;
            }
            done.done(connected, null);
        }

        private void fail(IOException why) {
            abandon();
            done.done(null, why);
        }

        @Override
        public void abandon() {
            if (!over) {
                over = true;
                Upcalls.release(id);
                closeQuietly(socket);
                onFree.run();
            }
        }
    }

    /**
     * What a socket's end gives back: its hold on {@code endpoint} and on its {@code link} (null: none), and a raw
     * socket's SCTP port (0: none).
     */
    private static Runnable freeing(Links.Endpoint endpoint, int port, Links.Link link) {
        return () -> {
            if (link != null) {
                Links.release(link);
            }
            if (endpoint instanceof RawIpEndpoint raw && port != 0) {
                raw.disown(port);
            }
            endpoint.release();
        };
    }

    /**
     * The UDP port the peer encapsulates on: the one this stack was made for, else, for a peer in this process, the
     * port of the loop listening at {@code remote}'s SCTP port, else the process's.
     */
    private int remoteUdpPort(InetSocketAddress remote) {
        if (remoteUdpPort > 0) {
            return remoteUdpPort;
        }
        int listening = Links.listeningUdpPort(remote.getPort());
        return listening > 0 ? listening : udpPort();
    }

    @Override
    public Listening listen(Loop loop, InetSocketAddress local, int streams, int adaptation) throws IOException {
        // datagrams to this address and port arrive on this loop's socket, bound to it
        Links.Endpoint endpoint = encapsulated ? udpEndpoint(loop, local.getAddress(), true) : rawEndpoint(loop);
        int mtu = sctpMtu(local.getAddress(), null);
        MemorySegment socket;
        try {
            socket = open(streams, adaptation, mtu);
        } catch (IOException e) {
            endpoint.release();
            throw e;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            int port = local.getPort();
            if (port == 0) {
                port = bindEphemeral(socket, arena, state, MemorySegment.NULL);
            } else {
                bind(socket, arena, state, MemorySegment.NULL, port);
            }
            int status = (int) Usrsctp.LISTEN.invokeExact(state, socket, 16);
            if (status != 0) {
                throw new IOException("SCTP listen on " + local + " failed, errno " + Usrsctp.errno(state));
            }
            Links.listen(port, encapsulated, local.getAddress(), endpoint);
            if (endpoint instanceof RawIpEndpoint raw) {
                raw.own(port);
            }
            return new UsrsctpListening(socket, new InetSocketAddress(local.getAddress(), port), mtu, loop,
                    endpoint);
        } catch (IOException | RuntimeException e) {
            closeQuietly(socket);
            endpoint.release();
            throw e;
        } catch (Throwable e) {
            closeQuietly(socket);
            endpoint.release();
            throw new IOException(e);
        }
    }

    /**
     * Binds {@code address} (a link, or NULL for every link) at a free port from the dynamic range (usrsctp does not
     * report the one it would pick).
     */
    private static int bindEphemeral(MemorySegment socket, Arena arena, MemorySegment state, MemorySegment address)
            throws IOException {
        int first = 49152 + java.util.concurrent.ThreadLocalRandom.current().nextInt(16384);
        for (int i = 0; i < 16384; i++) {
            int port = 49152 + (first - 49152 + i) % 16384;
            try {
                int status = (int) Usrsctp.BIND.invokeExact(state, socket, Usrsctp.sockaddrConn(arena, address, port),
                        (int) Usrsctp.SOCKADDR_CONN_SIZE);
                if (status == 0) {
                    return port;
                }
                if (Usrsctp.errno(state) != EADDRINUSE) {
                    throw new IOException("SCTP bind failed, errno " + Usrsctp.errno(state));
                }
            } catch (IOException e) {
                throw e;
            } catch (Throwable e) {
                throw new IOException(e);
            }
        }
        throw new IOException("no free SCTP port");
    }

    /** A socket with the options every DDP association needs (RFC 5043 §5.1, §8, §9, §10). */
    private static MemorySegment open(int streams, int adaptation, int sctpMtu) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            MemorySegment socket = (MemorySegment) Usrsctp.SOCKET.invokeExact(state, Usrsctp.AF_CONN,
                    Usrsctp.SOCK_STREAM, Usrsctp.IPPROTO_SCTP, MemorySegment.NULL, MemorySegment.NULL, 0,
                    MemorySegment.NULL);
            if (socket.equals(MemorySegment.NULL)) {
                throw new IOException("usrsctp_socket failed, errno " + Usrsctp.errno(state));
            }
            try {
                MemorySegment init = arena.allocate(8);
                init.set(JAVA_SHORT, 0, (short) streams); // equal outbound and inbound (RFC 5043 §8)
                init.set(JAVA_SHORT, 2, (short) streams);
                setsockopt(socket, state, Usrsctp.SCTP_INITMSG, init, "stream counts");
                setsockopt(socket, state, Usrsctp.SCTP_ADAPTATION_LAYER, Usrsctp.intValue(arena, adaptation),
                        "Adaptation Layer Indication");
                setsockopt(socket, state, Usrsctp.SCTP_RECVRCVINFO, Usrsctp.intValue(arena, 1), "rcvinfo");
                setsockopt(socket, state, Usrsctp.SCTP_NODELAY, Usrsctp.intValue(arena, 1), "nodelay");
                for (int type : new int[] {Usrsctp.SCTP_ADAPTATION_INDICATION, Usrsctp.SCTP_ASSOC_CHANGE,
                    Usrsctp.SCTP_SHUTDOWN_EVENT}) {
                    MemorySegment event = arena.allocate(8);
                    event.set(JAVA_SHORT, 4, (short) type);
                    event.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 6, (byte) 1);
                    setsockopt(socket, state, Usrsctp.SCTP_EVENT, event, "event " + type);
                }
                setPathMtu(socket, state, arena, sctpMtu);
                socketOption(socket, state, Usrsctp.SO_SNDBUF, Usrsctp.intValue(arena, SOCKET_BUFFER));
                socketOption(socket, state, Usrsctp.SO_RCVBUF, Usrsctp.intValue(arena, SOCKET_BUFFER));
                return socket;
            } catch (IOException | RuntimeException e) {
                closeQuietly(socket);
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /**
     * Fixes the association's path MTU, discovery off, so that no SCTP packet exceeds {@code sctpMtu} octets (no
     * IP header in AF_CONN). usrsctp 0.9.5 sizes the fragments of a large message as if the MTU excluded the
     * SCTP common header (measured: a 64 KiB message at MTU 65504 left in 65516-octet packets), so it is told
     * 12 octets less; a whole message then fills at most {@code sctpMtu - 12} octets, and the fragment of a
     * larger one exactly {@code sctpMtu}.
     */
    private static void setPathMtu(MemorySegment socket, MemorySegment state, Arena arena, int sctpMtu)
            throws IOException {
        MemorySegment params = arena.allocate(Usrsctp.PADDRPARAMS_SIZE);
        params.set(JAVA_INT, 136, sctpMtu - SCTP_COMMON_HEADER);
        params.set(JAVA_INT, 140, Usrsctp.SPP_PMTUD_DISABLE);
        setsockopt(socket, state, Usrsctp.SCTP_PEER_ADDR_PARAMS, params, "path MTU");
    }

    /**
     * The streams the association has each way, as the handshake settled them (SCTP_STATUS): the fewer of ours and
     * the peer's, which may grant fewer than asked (RFC 9260 §5.1.1). Sessions go on these only.
     */
    private static int negotiatedStreams(MemorySegment socket, Arena arena, MemorySegment state) throws IOException {
        MemorySegment status = arena.allocate(Usrsctp.STATUS_SIZE, 8);
        MemorySegment length = arena.allocate(JAVA_INT);
        length.set(JAVA_INT, 0, (int) Usrsctp.STATUS_SIZE);
        try {
            int result = (int) Usrsctp.GETSOCKOPT.invokeExact(state, socket, Usrsctp.IPPROTO_SCTP,
                    Usrsctp.SCTP_STATUS, status, length);
            if (result != 0) {
                throw new IOException("usrsctp_getsockopt(SCTP_STATUS) failed, errno " + Usrsctp.errno(state));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
        int streams = Math.min(Short.toUnsignedInt(status.get(JAVA_SHORT, Usrsctp.STATUS_INSTRMS)),
                Short.toUnsignedInt(status.get(JAVA_SHORT, Usrsctp.STATUS_OUTSTRMS)));
        if (streams < 1) {
            throw new IOException("the association has no stream in one direction (SCTP_STATUS)");
        }
        return streams;
    }

    static void setsockopt(MemorySegment socket, MemorySegment state, int option, MemorySegment value,
            String what) throws IOException {
        try {
            int status = (int) Usrsctp.SETSOCKOPT.invokeExact(state, socket, Usrsctp.IPPROTO_SCTP, option, value,
                    (int) value.byteSize());
            if (status != 0) {
                throw new IOException("usrsctp_setsockopt(" + what + ") failed, errno " + Usrsctp.errno(state));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    private static void socketOption(MemorySegment socket, MemorySegment state, int option, MemorySegment value)
            throws IOException {
        try {
            int status = (int) Usrsctp.SETSOCKOPT.invokeExact(state, socket, Usrsctp.SOL_SOCKET, option, value,
                    (int) value.byteSize());
            if (status != 0) {
                throw new IOException("usrsctp socket buffer option failed, errno " + Usrsctp.errno(state));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    private static void bind(MemorySegment socket, Arena arena, MemorySegment state, MemorySegment link, int port)
            throws IOException {
        try {
            int status = (int) Usrsctp.BIND.invokeExact(state, socket, Usrsctp.sockaddrConn(arena, link, port),
                    (int) Usrsctp.SOCKADDR_CONN_SIZE);
            if (status != 0) {
                throw new IOException("SCTP bind to port " + port + " failed, errno " + Usrsctp.errno(state));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    private static void closeQuietly(MemorySegment socket) {
        try {
            UsrsctpRuntime.close(socket);
        } catch (Throwable e) {
            // already failing: the first error is the one to report
        }
    }

    /** usrsctp's stack lives as long as the process; individual sockets are closed by their owners. */
    @Override
    public void close() {
        // nothing per view
    }

    /** A listening usrsctp socket whose upcall schedules accepts on its loop. */
    private final class UsrsctpListening extends LoopListening {
        private final MemorySegment socket;
        private final int mtu;
        private final int id;
        private final Links.Endpoint endpoint;
        private final MemorySegment state = Usrsctp.captureState(Arena.ofAuto());

        UsrsctpListening(MemorySegment socket, InetSocketAddress address, int mtu, Loop loop,
                Links.Endpoint endpoint) throws IOException {
            super(address, loop);
            this.socket = socket;
            this.mtu = mtu;
            this.endpoint = endpoint;
            this.id = Upcalls.attach(socket, this::ready, "listening");
        }

        @Override
        protected SctpSocket acceptOne() throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment peer = arena.allocate(Usrsctp.SOCKADDR_STORAGE_SIZE);
                MemorySegment peerLength = Usrsctp.intValue(arena, (int) Usrsctp.SOCKADDR_STORAGE_SIZE);
                MemorySegment accepted = (MemorySegment) Usrsctp.ACCEPT.invokeExact(state, socket, peer, peerLength);
                if (accepted.equals(MemorySegment.NULL)) {
                    return null; // EAGAIN: the next upcall brings the next association
                }
                int granted;
                try {
                    granted = negotiatedStreams(accepted, arena, state);
                } catch (IOException e) {
                    closeQuietly(accepted);
                    throw e;
                }
                return accepted(accepted, peer, granted);
            } catch (IOException e) {
                throw e;
            } catch (Throwable e) {
                throw new IOException(e);
            }
        }

        /**
         * Wraps an accepted association with the {@code streams} it has each way. Its path MTU is the listener's
         * (usrsctp copies it at accept), chosen for the listening address: the wildcard's is the smallest of the
         * interfaces, right whichever one the peer used.
         */
        private UsrsctpSocket accepted(MemorySegment accepted, MemorySegment peer, int streams) throws IOException {
            Links.Link link = Links.link(Usrsctp.connLink(peer));
            InetSocketAddress remote = new InetSocketAddress(link == null ? address().getAddress()
                    : link.remote.getAddress(), Usrsctp.port(peer));
            // the association's packets come through the listener's endpoint and port, which it may outlive
            endpoint.hold();
            int port = 0;
            if (endpoint instanceof RawIpEndpoint raw) {
                port = address().getPort();
                raw.own(port);
            }
            UsrsctpSocket wrapped = new UsrsctpSocket(accepted, streams, maxMessage(mtu), remote,
                    freeing(endpoint, port, link));
            if (link != null) {
                Links.hold(link); // released when the socket is freed
            }
            return wrapped;
        }

        @Override
        protected void closeNative() {
            Links.unlisten(address().getPort());
            freeing(endpoint, endpoint instanceof RawIpEndpoint ? address().getPort() : 0, null).run();
            Upcalls.release(id);
            closeQuietly(socket);
        }
    }
}
