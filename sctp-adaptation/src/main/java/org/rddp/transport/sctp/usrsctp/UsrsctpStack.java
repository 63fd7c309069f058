package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.rddp.llp.EventLoop;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;

/**
 * SCTP in user space: Debian's libusrsctp2 through {@code java.lang.foreign}. usrsctp keeps one stack per
 * process with one UDP port for encapsulation (RFC 6951), so every {@code UsrsctpStack} of a JVM shares it;
 * {@link #udp()} encapsulates in UDP (unprivileged), {@link #nativeIp()} sends SCTP straight over IP (usrsctp
 * then needs raw sockets, so root).
 *
 * <p>The path MTU is fixed (path MTU discovery off) so that the largest message that avoids fragmentation is
 * known: RFC 5043 §9 asks the adaptation to advertise exactly that.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
public final class UsrsctpStack implements SctpStack {
    /**
     * Path MTU used on every association; the system property {@code rddp.usrsctp.pmtu} overrides it. Kept at
     * 16 KiB because of libusrsctp2 0.9.5's UDP output path: it copies a packet's mbuf chain into at most 32
     * iovecs (MAXLEN_MBUF_CHAIN in user_socket.c) and silently drops a packet whose chain is longer. Data sits in
     * 2 KiB clusters, so a large packet, or one bundling several chunks, can need more than 32 mbufs; the drop
     * then repeats on every retransmission and the association stalls. Measured on loopback: 60000-octet
     * packets were lost, and a 49 KiB PMTU stalled two processes echoing 100 messages of up to 64 KiB; at 16 KiB
     * and 8 KiB the same exchange always completed.
     */
    public static final int PATH_MTU = Integer.getInteger("rddp.usrsctp.pmtu", 16384);
    private static final int IP_HEADER = 20;
    private static final int UDP_HEADER = 8;
    private static final int SCTP_COMMON_HEADER = 12;
    private static final int DATA_CHUNK_HEADER = 16;
    private static final int SOCKET_BUFFER = 4 << 20;
    private static final int MAX_CHUNKS_QUEUED = 512;

    /** System property naming the UDP port for this process's usrsctp stack; a free one is chosen without it. */
    public static final String UDP_PORT_PROPERTY = "rddp.usrsctp.udp-port";

    private static int udpPort = -1;

    private final boolean encapsulated;
    private final int remoteUdpPort;

    private UsrsctpStack(boolean encapsulated, int remoteUdpPort) {
        this.encapsulated = encapsulated;
        this.remoteUdpPort = remoteUdpPort;
    }

    /** SCTP over UDP (RFC 6951) on this process's usrsctp stack, started on first use, to peers in this process. */
    public static UsrsctpStack udp() throws IOException {
        start();
        return new UsrsctpStack(true, udpPort());
    }

    /**
     * SCTP over UDP to peers whose usrsctp encapsulates on {@code remoteUdpPort} (another process's stack): the
     * initiator must know the responder's UDP port; the responder learns the initiator's (RFC 6951 §5.4).
     */
    public static UsrsctpStack udp(int remoteUdpPort) throws IOException {
        start();
        return new UsrsctpStack(true, remoteUdpPort);
    }

    /** SCTP straight over IP on this process's usrsctp stack; needs root for usrsctp's raw sockets. */
    public static UsrsctpStack nativeIp() throws IOException {
        start();
        return new UsrsctpStack(false, 0);
    }

    /**
     * Stops this process's usrsctp stack once every socket is closed ({@code usrsctp_finish} refuses while any
     * exists), trying until {@code timeout}. Returns whether it stopped; afterwards no stack can be started again
     * in this process.
     */
    @SuppressWarnings("checkstyle:IllegalCatch")
    public static synchronized boolean shutdown(java.time.Duration timeout) {
        if (udpPort < 0) {
            return true;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int status;
            try {
                status = (int) Usrsctp.FINISH.invokeExact();
            } catch (Throwable e) {
                return false;
            }
            if (status == 0) {
                udpPort = Integer.MIN_VALUE; // finished for good
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.onSpinWait(); // sockets still closing: their associations shut down in usrsctp's threads
        }
    }

    /** The UDP port this process's usrsctp stack encapsulates on. */
    public static synchronized int udpPort() {
        return udpPort;
    }

    /**
     * Starts usrsctp once per process on a free UDP port. {@code usrsctp_init} reports nothing when it cannot
     * bind its port (later connects just hang), so the port is checked before and after.
     */
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
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(port))) {
                probe.getLocalPort(); // free: usrsctp may have it
            } catch (SocketException e) {
                throw new IOException("UDP port " + port + " is taken, and usrsctp needs it for SCTP over UDP "
                        + "(RFC 6951): free it or choose another with -D" + UDP_PORT_PROPERTY + "=PORT", e);
            }
        }
        try {
            Usrsctp.INIT.invokeExact((short) port, MemorySegment.NULL, MemorySegment.NULL);
        } catch (Throwable e) {
            throw new IOException("usrsctp_init failed", e);
        }
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                port))) {
            throw new IOException("usrsctp did not get its UDP port " + port + " (" + probe.getLocalPort()
                    + " was still free after usrsctp_init)");
        } catch (BindException expected) {
            udpPort = port; // taken: by usrsctp, as it should be
        }
        UdpSocketBuffers.raise(port, SOCKET_BUFFER);
        try {
            // RFC 5043 §10: fewer than 32768 unacknowledged chunks per stream, without relying on ULP flow
            // control. usrsctp blocks a sender once this many chunks of an association are queued or unacked.
            int status = (int) Usrsctp.SET_MAX_CHUNKS_ON_QUEUE.invokeExact(MAX_CHUNKS_QUEUED);
            if (status != 0 || maxChunksInFlight() > DdpSctp.MAX_CHUNKS_IN_FLIGHT_PER_STREAM) {
                throw new IOException("could not bound usrsctp's queued chunks to " + MAX_CHUNKS_QUEUED);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
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
    public String name() {
        return encapsulated ? "usrsctp-udp" : "usrsctp-native";
    }

    /** The largest user message that avoids SCTP and IP fragmentation at {@link #PATH_MTU} (RFC 5043 §9). */
    public int maxMessage() {
        return PATH_MTU - IP_HEADER - (encapsulated ? UDP_HEADER : 0) - SCTP_COMMON_HEADER - DATA_CHUNK_HEADER;
    }

    @Override
    public SctpSocket connect(InetSocketAddress local, InetSocketAddress remote, int streams, int adaptation)
            throws IOException {
        MemorySegment socket = open(streams, adaptation);
        boolean done = false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            bind(socket, arena, state, new InetSocketAddress(local.getAddress(), 0)); // one address in the INIT
            if (encapsulated) {
                MemorySegment encaps = arena.allocate(Usrsctp.UDPENCAPS_SIZE);
                encaps.set(JAVA_SHORT, 0, (short) Usrsctp.AF_INET);
                encaps.set(Usrsctp.U16_BE, 132, (short) remoteUdpPort);
                setsockopt(socket, state, Usrsctp.SCTP_REMOTE_UDP_ENCAPS_PORT, encaps, "remote UDP port");
            }
            int status = (int) Usrsctp.CONNECT.invokeExact(state, socket, Usrsctp.sockaddr(arena, remote),
                    (int) Usrsctp.SOCKADDR_IN_SIZE);
            if (status != 0) {
                throw new IOException("SCTP connect to " + remote + " failed, errno " + Usrsctp.errno(state));
            }
            UsrsctpSocket connected = new UsrsctpSocket(socket, streams, maxMessage(), remote);
            done = true;
            return connected;
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            if (!done) {
                closeQuietly(socket);
            }
        }
    }

    @Override
    public Listening listen(InetSocketAddress local, int streams, int adaptation) throws IOException {
        MemorySegment socket = open(streams, adaptation);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            int port = local.getPort() == 0 ? freeUdpPort() : local.getPort(); // usrsctp does not report it back
            bind(socket, arena, state, new InetSocketAddress(local.getAddress(), port));
            int status = (int) Usrsctp.LISTEN.invokeExact(state, socket, 16);
            if (status != 0) {
                throw new IOException("SCTP listen on " + local + " failed, errno " + Usrsctp.errno(state));
            }
            return new UsrsctpListening(socket, new InetSocketAddress(local.getAddress(), port), streams);
        } catch (IOException | RuntimeException e) {
            closeQuietly(socket);
            throw e;
        } catch (Throwable e) {
            closeQuietly(socket);
            throw new IOException(e);
        }
    }

    /** A blocking socket with the options every DDP association needs (RFC 5043 §5.1, §8, §9, §10). */
    private MemorySegment open(int streams, int adaptation) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            MemorySegment socket = (MemorySegment) Usrsctp.SOCKET.invokeExact(state, Usrsctp.AF_INET,
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
                MemorySegment params = arena.allocate(Usrsctp.PADDRPARAMS_SIZE);
                params.set(JAVA_INT, 136, PATH_MTU);
                params.set(JAVA_INT, 140, Usrsctp.SPP_PMTUD_DISABLE);
                setsockopt(socket, state, Usrsctp.SCTP_PEER_ADDR_PARAMS, params, "path MTU");
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

    private static void setsockopt(MemorySegment socket, MemorySegment state, int option, MemorySegment value,
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

    private static void bind(MemorySegment socket, Arena arena, MemorySegment state, InetSocketAddress address)
            throws IOException {
        try {
            int status = (int) Usrsctp.BIND.invokeExact(state, socket, Usrsctp.sockaddr(arena, address),
                    (int) Usrsctp.SOCKADDR_IN_SIZE);
            if (status != 0) {
                throw new IOException("SCTP bind to " + address + " failed, errno " + Usrsctp.errno(state));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    private static void closeQuietly(MemorySegment socket) {
        try {
            Usrsctp.CLOSE.invokeExact(socket);
        } catch (Throwable e) {
            // already failing: the first error is the one to report
        }
    }

    /** usrsctp's stack lives as long as the process; individual sockets are closed by their owners. */
    @Override
    public void close() {
        // nothing per view
    }

    /**
     * A listening usrsctp socket, non-blocking: the upcall schedules accepts on the listener's own loop, and
     * closing happens on that loop too. (A thread blocked in usrsctp_accept while another closes the socket
     * can wake up on a new socket that reuses the freed one: never block in accept.)
     */
    private final class UsrsctpListening implements Listening {
        private final MemorySegment socket;
        private final InetSocketAddress address;
        private final int streams;
        private final EventLoop loop;
        private final AtomicBoolean scheduled = new AtomicBoolean();
        private final int id;
        private final MemorySegment state = Usrsctp.captureState(Arena.ofAuto());
        private volatile Consumer<SctpSocket> onAssociation;
        private volatile boolean closed;

        UsrsctpListening(MemorySegment socket, InetSocketAddress address, int streams) throws IOException {
            this.socket = socket;
            this.address = address;
            this.streams = streams;
            this.loop = new EventLoop("sctp-listen-" + address.getPort());
            this.id = Upcalls.register(() -> {
                if (scheduled.compareAndSet(false, true)) {
                    loop.execute(this::acceptAll);
                }
            });
            try {
                int status = (int) Usrsctp.SET_NON_BLOCKING.invokeExact(socket, 1);
                int upcall = (int) Usrsctp.SET_UPCALL.invokeExact(socket, Upcalls.STUB, MemorySegment.ofAddress(id));
                if (status != 0 || upcall != 0) {
                    throw new IOException("could not make the listening socket non-blocking");
                }
            } catch (IOException e) {
                Upcalls.release(id);
                loop.close();
                throw e;
            } catch (Throwable e) {
                Upcalls.release(id);
                loop.close();
                throw new IOException(e);
            }
        }

        @Override
        public InetSocketAddress address() {
            return address;
        }

        @Override
        public void start(Consumer<SctpSocket> handler) {
            onAssociation = handler;
            loop.execute(this::acceptAll);
        }

        private void acceptAll() {
            scheduled.set(false);
            Consumer<SctpSocket> handler = onAssociation;
            while (!closed && handler != null) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment peer = arena.allocate(Usrsctp.SOCKADDR_STORAGE_SIZE);
                    MemorySegment peerLength = Usrsctp.intValue(arena, (int) Usrsctp.SOCKADDR_STORAGE_SIZE);
                    MemorySegment accepted = (MemorySegment) Usrsctp.ACCEPT.invokeExact(state, socket, peer,
                            peerLength);
                    if (accepted.equals(MemorySegment.NULL)) {
                        return; // EAGAIN: the next upcall brings the next association
                    }
                    handler.accept(new UsrsctpSocket(accepted, streams, maxMessage(), Usrsctp.address(peer)));
                } catch (Throwable e) {
                    return; // a failed accept loses that association only; the peer's INIT times out
                }
            }
        }

        @Override
        public void close() {
            loop.execute(() -> {
                if (!closed) {
                    closed = true;
                    Upcalls.release(id);
                    closeQuietly(socket);
                }
            });
            loop.close();
        }
    }
}
