package org.rddp.transport.sctp.usrsctp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.rddp.loop.Loop;
import org.rddp.posix.Posix;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;

/**
 * The paths usrsctp's packets take, carried by this package: usrsctp runs in its {@code AF_CONN} address family, where
 * an SCTP address is an opaque link pointer ({@link UsrsctpRuntime} feeds it and takes its packets). A {@link Link} is
 * the path to one peer endpoint, through one local {@link Endpoint} of a loop: a UDP address and port (SCTP over UDP,
 * RFC 6951) or an IPv4 address (SCTP straight over IP, protocol 132). The table gives each path a small index,
 * registered with usrsctp once and reused, and restricts listening ports to the address and kind they were bound to.
 *
 * <p>Why not usrsctp's own UDP and raw sockets: libusrsctp2 0.9.5 gathers a packet's mbuf chain into at most 32
 * iovecs (MAXLEN_MBUF_CHAIN in user_socket.c) and silently drops any packet with a longer chain, and every
 * retransmission of it, until the association fails. A packet bundling many small chunks, or a large one, has
 * such a chain. {@code conn_output} gets the packet copied into one buffer, so nothing is dropped, and the path
 * MTU can be the interface's.
 */
final class Links {
    private static final int MAX_LINKS = 4096;

    /** The path to one peer endpoint, through one local endpoint. */
    static final class Link {
        /** What usrsctp knows the link by: a small integer as an opaque pointer (never dereferenced). */
        final MemorySegment handle;
        final Endpoint endpoint;
        /** The peer's UDP address and port, or its IPv4 address with port 0 for SCTP over IP. */
        final InetSocketAddress remote;
        /** {@link #remote} as a sockaddr_in, for sendto. */
        final MemorySegment sockaddr;
        final int index;
        /** When a packet last went in or out through it ({@link System#nanoTime}). */
        volatile long lastActive = System.nanoTime();
        /** Given back: its handle may name another path now, so whoever kept this object looks the path up again. */
        volatile boolean freed;
        /** Sockets whose association runs over it; a held link is never given back. Guarded by PATHS. */
        private int holders;
        /**
         * The IP path MTU towards the peer the kernel learned after the link's MTU was set (a hop's ICMP "fragmentation
         * needed" or "packet too big"), once a packet was refused for it; 0 until then. Its associations take it
         * ({@link UsrsctpSocket#currentMaxMessage}).
         */
        volatile int learnedIpMtu;

        Link(int index, Endpoint endpoint, InetSocketAddress remote) throws IOException {
            this.index = index;
            this.handle = MemorySegment.ofAddress(index);
            this.endpoint = endpoint;
            this.remote = remote;
            this.sockaddr = Posix.sockaddr(Arena.ofAuto(), remote);
        }

        /** The largest SCTP packet the path MTU the kernel learned leaves room for, or 0 when it learned none. */
        int learnedSctpMtu() {
            int ipMtu = learnedIpMtu;
            return ipMtu == 0 ? 0 : UsrsctpStack.sctpMtu(ipMtu, remote.getAddress(), endpoint.udp);
        }

        /** A packet was refused for the path MTU: asks the kernel what it learned towards the peer. */
        void pathMtuShrank() {
            int known = Posix.pathMtu(remote.getAddress());
            if (known > 0) {
                learnedIpMtu = known;
            }
        }
    }

    /** A local socket that carries SCTP packets for one loop: a UDP socket, or a raw IP socket. */
    abstract static class Endpoint implements AutoCloseable {
        /** The most packets a cycle reads from an endpoint's socket. */
        static final int PACKETS_PER_CYCLE = 64;

        final InetAddress local;
        final boolean udp;
        /** Its socket (non-blocking), read by its loop's poller once {@link #readByLoop} registered it. */
        final int fd;
        private volatile org.rddp.transport.sctp.io.EpollPoller poller;
        /** Where a send's errno goes; its monitor orders the sends of the loops that call into usrsctp. */
        private final MemorySegment sendState = Posix.captureState(Arena.ofAuto());
        /** IP_MTU_DISCOVER's value for a send, guarded by {@link #sendState}. */
        private final MemorySegment discovery = Arena.ofAuto().allocate(java.lang.foreign.ValueLayout.JAVA_INT);
        private int registration;
        volatile boolean open = true;
        /** The last {@link #look} found packets. Loop thread. */
        private boolean flowing;

        /** Opened for {@code loop}, which from then on drives usrsctp's clock too, while the endpoint is open. */
        Endpoint(InetAddress local, boolean udp, Loop loop, int fd) {
            this.local = local;
            this.udp = udp;
            this.fd = fd;
            // Don't Fragment: the path MTU is chosen so that nothing needs it (RFC 5043 §9); a smaller one a hop
            // reports makes the kernel refuse larger packets (EMSGSIZE) rather than fragment them
            synchronized (sendState) {
                discover(Posix.IP_PMTUDISC_DO);
            }
            loop.execute(() -> UsrsctpRuntime.tickOn(loop, this));
        }

        /** Sets IP_MTU_DISCOVER (IPV6_MTU_DISCOVER) to {@code mode}. Holds {@link #sendState}. */
        @SuppressWarnings("checkstyle:IllegalCatch") // invokeExact declares Throwable
        private void discover(int mode) {
            boolean v6 = local instanceof java.net.Inet6Address;
            discovery.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, mode);
            try {
                int ignored = (int) Posix.SETSOCKOPT.invokeExact(sendState, fd, v6 ? Posix.IPPROTO_IPV6
                        : Posix.IPPROTO_IP, v6 ? Posix.IPV6_MTU_DISCOVER : Posix.IP_MTU_DISCOVER, discovery, 4);
            } catch (Throwable e) {
                throw new IllegalStateException(e); // a linked libc call does not fail to be called
            }
        }

        /** Has the loop's poller read the socket, and close it with the loop. The last step of a constructor. */
        final void readByLoop(Loop loop) throws IOException {
            poller = (org.rddp.transport.sctp.io.EpollPoller) loop.poller();
            registration = poller.registerDirect(fd, Posix.EPOLLIN, events -> receive(PACKETS_PER_CYCLE),
                    this::look);
            poller.onClose(this::close);
        }

        /** Whether it still carries packets. */
        boolean open() {
            return open;
        }

        /**
         * Reads up to {@code most} packets from the socket and hands them to usrsctp, without blocking. Loop thread.
         *
         * @return the packets read
         */
        abstract int receive(int most);

        /**
         * A busy loop's look at the socket, every cycle. After a look that found nothing it reads one packet, so that
         * what that packet raised (a message, which usrsctp reports from inside the stack) runs in this cycle, not
         * after one more read that finds nothing: a ping-pong's every hop. After a look that found some, a flow is
         * on, and it reads as many as a cycle takes. Loop thread.
         */
        final int look() {
            int read = receive(flowing ? PACKETS_PER_CYCLE : 1);
            flowing = read > 0;
            return read;
        }

        /**
         * Sends one SCTP packet (common header and chunks) to the link's peer, with Don't Fragment. On whichever loop's
         * thread called into usrsctp: its own reading a packet, or another's driving usrsctp's clock
         * ({@link UsrsctpRuntime#tick}). A packet larger than the path MTU the kernel learned from a hop since the
         * association started (EMSGSIZE) goes again at once without Don't Fragment, fragmented by IP: SCTP does not cut
         * a chunk again (RFC 9260 §7.3), and usrsctp, whose path MTU discovery is off over AF_CONN, made it for the
         * larger MTU. The link asks the kernel for the MTU it learned, and its associations take it, so that what they
         * make next fits ({@link UsrsctpSocket#currentMaxMessage}).
         */
        void send(MemorySegment packet, Link link) throws IOException {
            synchronized (sendState) { // its loop, and another loop driving usrsctp's clock (UsrsctpRuntime.tick)
                if (!open) {
                    throw new IOException("the " + (udp ? "UDP" : "raw IP") + " socket of this loop is closed");
                }
                int errno = Posix.sendTo(sendState, fd, packet, link.sockaddr);
                if (errno == Posix.EMSGSIZE) {
                    link.pathMtuShrank();
                    discover(Posix.IP_PMTUDISC_DONT);
                    try {
                        errno = Posix.sendTo(sendState, fd, packet, link.sockaddr);
                    } finally {
                        discover(Posix.IP_PMTUDISC_DO);
                    }
                }
                if (errno != 0) {
                    throw new IOException("sendto failed: " + Posix.describe(errno));
                }
            }
        }

        /** The UDP port it is bound to; 0 for a raw IP socket. */
        abstract int port();

        /** One more socket sends and receives through it. Any thread. */
        void hold() {
            // kept as long as its loop by default
        }

        /** One socket less does; the last one's release may close it. Any thread. */
        void release() {
            // kept as long as its loop by default
        }

        /** Stops reading and closes the socket; on the loop thread (it closes with the loop). */
        @Override
        public void close() {
            if (!open) {
                return;
            }
            open = false;
            if (poller != null) {
                poller.deregister(registration, fd);
            }
            Links.forget(this);
            synchronized (sendState) {
                Posix.closeQuietly(fd);
            }
        }
    }

    /** Which packets may reach a listening port: those of its kind, to its address (null: any); and its endpoint. */
    private record Scope(boolean udp, InetAddress address, Endpoint endpoint) {
    }

    /** A link's identity: the local endpoint and the peer. */
    private record Path(Endpoint endpoint, InetSocketAddress remote) {
    }

    private static final AtomicReferenceArray<Link> LINKS = new AtomicReferenceArray<>(MAX_LINKS);
    private static final ConcurrentHashMap<Path, Link> PATHS = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT_LINK = new AtomicInteger(1);
    /** Indices given back, registered with usrsctp already. Guarded by PATHS. */
    private static final ArrayDeque<Integer> FREE_LINKS = new ArrayDeque<>();
    private static final AtomicReferenceArray<Scope> LISTENERS = new AtomicReferenceArray<>(1 << 16);

    private Links() {
    }

    /** The link to a peer's UDP address and port through {@code via}, created on first use. */
    static Link udpLink(InetSocketAddress remote, Endpoint via) throws IOException {
        return link(new Path(via, remote));
    }

    /** The link to a peer's IPv4 address for SCTP over IP through {@code via}, created on first use. */
    static Link ipLink(InetAddress remote, Endpoint via) throws IOException {
        return link(new Path(via, new InetSocketAddress(remote, 0)));
    }

    /**
     * The link for {@code path}, created on first use. Its index is a given-back one if there is one; usrsctp keeps
     * every index it was told of (no deregistering: that runs usrsctp's address work queue and iterator thread), so
     * at most {@value #MAX_LINKS} addresses stay registered. With all indices in use, the link no socket holds that
     * has been quiet longest is given back: a stranger's packets from many ports take links, but never a socket's.
     */
    private static Link link(Path path) throws IOException {
        Link existing = PATHS.get(path);
        if (existing != null) {
            return existing;
        }
        synchronized (PATHS) {
            existing = PATHS.get(path);
            if (existing != null) {
                return existing;
            }
            Integer reused = FREE_LINKS.poll();
            if (reused == null && NEXT_LINK.get() >= MAX_LINKS) {
                reused = reclaimQuietest();
            }
            int index = reused != null ? reused : NEXT_LINK.getAndIncrement();
            Link link = new Link(index, path.endpoint(), path.remote());
            if (reused == null) {
                try {
                    UsrsctpRuntime.registerAddress(link.handle);
                } catch (IOException e) {
                    FREE_LINKS.add(index);
                    throw e;
                }
            }
            LINKS.set(index, link);
            PATHS.put(path, link);
            return link;
        }
    }

    /** Gives back the unheld link quiet longest and returns its index. Holds PATHS. */
    private static int reclaimQuietest() throws IOException {
        Link quietest = null;
        for (Link link : PATHS.values()) {
            if (link.holders == 0 && (quietest == null || link.lastActive - quietest.lastActive < 0)) {
                quietest = link;
            }
        }
        if (quietest == null) {
            throw new IOException("more than " + (MAX_LINKS - 1) + " SCTP peer endpoints in use in one process");
        }
        forget(quietest);
        return FREE_LINKS.removeLast();
    }

    /** Gives a link back. Holds PATHS. */
    private static void forget(Link link) {
        if (link.freed) {
            return;
        }
        link.freed = true;
        PATHS.remove(new Path(link.endpoint, link.remote), link);
        LINKS.compareAndSet(link.index, link, null);
        FREE_LINKS.add(link.index);
    }

    /** A socket's association runs over {@code link}: it is not given back while held. */
    static void hold(Link link) {
        synchronized (PATHS) {
            link.holders++;
        }
    }

    /** The socket that held {@code link} is freed. */
    static void release(Link link) {
        synchronized (PATHS) {
            link.holders--;
        }
    }

    /** Gives back every link through {@code endpoint}, which is closing: no packet goes through it any more. */
    static void forget(Endpoint endpoint) {
        synchronized (PATHS) {
            for (Link link : PATHS.values()) {
                if (link.endpoint == endpoint) {
                    forget(link);
                }
            }
        }
    }

    /** Indices ever registered with usrsctp: the most links in use at once. */
    static int registered() {
        return NEXT_LINK.get() - 1;
    }

    /** Links in use now. */
    static int inUse() {
        return PATHS.size();
    }

    /** The link usrsctp knows by {@code handle}, or null. */
    static Link link(long handle) {
        return handle > 0 && handle < MAX_LINKS ? LINKS.get((int) handle) : null;
    }

    /**
     * Restricts a listening SCTP port to packets of one kind sent to one address (null: any) through one endpoint:
     * usrsctp's {@code AF_CONN} listener hears every link, and the socket must hear only the address it was bound
     * to, on its loop's endpoint.
     */
    static void listen(int port, boolean udp, InetAddress address, Endpoint endpoint) {
        LISTENERS.set(port, new Scope(udp, address == null || address.isAnyLocalAddress() ? null : address,
                endpoint));
    }

    /** The UDP port of the endpoint listening on SCTP port {@code port} in this process, or 0 if none. */
    static int listeningUdpPort(int port) {
        Scope scope = port > 0 && port < LISTENERS.length() ? LISTENERS.get(port) : null;
        return scope == null || !scope.udp() ? 0 : scope.endpoint().port();
    }

    /** Lifts the restriction of {@link #listen}. */
    static void unlisten(int port) {
        LISTENERS.set(port, null);
    }

    /**
     * Hands a received SCTP packet to usrsctp, unless it is for a listening port bound to another address or
     * carried another way.
     *
     * @param destination the address the packet was sent to, or null if unknown (a wildcard UDP socket)
     */
    static void input(Link link, MemorySegment packet, int length, InetAddress destination) {
        if (length < 12) {
            return; // not even an SCTP common header
        }
        Scope scope = LISTENERS.get(packet.get(Usrsctp.U16_BE, 2) & 0xFFFF);
        if (scope != null && (scope.udp() != link.endpoint.udp
                || scope.address() != null && !scope.address().equals(destination))) {
            return; // as if nothing listened here: the INIT times out
        }
        if (!Checksums.valid(packet, length)) {
            Counters.process().increment(Counter.SCTP_BAD_CHECKSUMS);
            return; // RFC 9260 §6.8: silently discarded
        }
        link.lastActive = System.nanoTime();
        UsrsctpRuntime.input(link.handle, packet, length);
    }

}
