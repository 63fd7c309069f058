package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rddp.loop.Loop;
import org.rddp.transport.sctp.io.Posix;
import org.rddp.verbs.Counter;
import org.rddp.verbs.Counters;

/**
 * usrsctp as a protocol engine, with every packet carried by this package. usrsctp runs without threads of its
 * own ({@code usrsctp_init_nothreads}) and in its {@code AF_CONN} address family: an SCTP address is an opaque
 * link pointer, outgoing packets arrive whole in one buffer at {@code conn_output}, and received ones go in
 * through {@code usrsctp_conninput}. A {@link Link} is the path to one peer endpoint: a UDP address and port
 * (SCTP over UDP, RFC 6951) or an IPv4 address (SCTP straight over IP, protocol 132).
 *
 * <p>Why not usrsctp's own UDP and raw sockets: libusrsctp2 0.9.5 gathers a packet's mbuf chain into at most 32
 * iovecs (MAXLEN_MBUF_CHAIN in user_socket.c) and silently drops any packet with a longer chain, and every
 * retransmission of it, until the association fails. A packet bundling many small chunks, or a large one, has
 * such a chain. {@code conn_output} gets the packet copied into one buffer, so nothing is dropped, and the path
 * MTU can be the interface's.
 *
 * <p>Threads: each endpoint belongs to one loop, whose epoll watches it and whose thread reads it and feeds usrsctp.
 * usrsctp's clock ({@code usrsctp_handle_timers}: retransmissions, heartbeats, delayed SACKs) is driven by the loops
 * that own endpoints, as a {@linkplain Loop#schedule deadline} every {@value #TICK_MILLIS} ms of each; whichever comes
 * first claims the tick, so the clock runs while any such loop runs, and no thread of its own does. usrsctp is one
 * stack for the whole process, so with several loops its calls still come from several threads, and two guards
 * remain, both for usrsctp's sake: its timer path and its socket teardown race its input path (usrsctp issues 673
 * and 676), so a tick, a close and a shutdown take {@link #LOCK} for writing while {@code conninput} and
 * {@code register_address} take it for reading ({@code usrsctp_sendv} and {@code recvv} run under usrsctp's own
 * socket locks and take none); and a tick's packets leave through endpoints of other loops, so an endpoint's send
 * is guarded against its own loop's. {@link #finish} takes the write lock so that nothing is inside usrsctp when
 * the stack stops. {@code conn_output} runs on the thread that called into usrsctp, and sends through the link's
 * endpoint.
 */
@SuppressWarnings({"checkstyle:IllegalCatch", "restricted"}) // invokeExact declares Throwable; upcall stub
final class Links {
    static final int TICK_MILLIS = 10;
    private static final int MAX_LINKS = 4096;
    private static final int EIO = 5;
    private static final int EHOSTUNREACH = 113;

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

        Link(int index, Endpoint endpoint, InetSocketAddress remote) throws IOException {
            this.index = index;
            this.handle = MemorySegment.ofAddress(index);
            this.endpoint = endpoint;
            this.remote = remote;
            this.sockaddr = Posix.sockaddr(Arena.ofAuto(), remote);
        }
    }

    /** A local socket that carries SCTP packets for one loop: a UDP socket, or a raw IP socket. */
    abstract static class Endpoint implements AutoCloseable {
        /** The most packets a cycle reads from an endpoint's socket. */
        static final int PACKETS_PER_CYCLE = 64;

        final InetAddress local;
        final boolean udp;
        /** The last {@link #look} found packets. Loop thread. */
        private boolean flowing;

        /** Opened for {@code loop}, which from then on drives usrsctp's clock too, while the endpoint is open. */
        Endpoint(InetAddress local, boolean udp, Loop loop) {
            this.local = local;
            this.udp = udp;
            loop.execute(() -> tickOn(loop, this));
        }

        /** Whether it still carries packets. */
        abstract boolean open();

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
         * Sends one SCTP packet (common header and chunks) to the link's peer. On whichever loop's thread called into
         * usrsctp: its own reading a packet, or another's driving usrsctp's clock ({@link #tick}).
         */
        abstract void send(MemorySegment packet, Link link) throws IOException;

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

        @Override
        public abstract void close();
    }

    /** Which packets may reach a listening port: those of its kind, to its address (null: any); and its endpoint. */
    private record Scope(boolean udp, InetAddress address, Endpoint endpoint) {
    }

    /** A link's identity: the local endpoint and the peer. */
    private record Path(Endpoint endpoint, InetSocketAddress remote) {
    }

    static final MemorySegment OUTPUT_STUB;
    private static final AtomicReferenceArray<Link> LINKS = new AtomicReferenceArray<>(MAX_LINKS);
    private static final ConcurrentHashMap<Path, Link> PATHS = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT_LINK = new AtomicInteger(1);
    /** Indices given back, registered with usrsctp already. Guarded by PATHS. */
    private static final ArrayDeque<Integer> FREE_LINKS = new ArrayDeque<>();
    private static final AtomicReferenceArray<Scope> LISTENERS = new AtomicReferenceArray<>(1 << 16);
    private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock();
    private static final AtomicInteger LARGEST_PACKET = new AtomicInteger();
    private static final AtomicLong PACKETS_SENT = new AtomicLong();
    private static volatile boolean running;
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
    /** When usrsctp's clock last advanced ({@link System#nanoTime}), up to the whole milliseconds it advanced by. */
    private static final AtomicLong LAST_TICK = new AtomicLong(System.nanoTime());
    private static final AtomicLong TICKS = new AtomicLong();

    static {
        MemorySegment stub = MemorySegment.NULL;
        if (Usrsctp.unavailable() == null) {
            try {
                stub = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(Links.class, "output",
                        MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class, long.class,
                                byte.class, byte.class)),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_BYTE, JAVA_BYTE),
                        Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        OUTPUT_STUB = stub;
    }

    private Links() {
    }

    /**
     * Starts usrsctp without threads of its own; the loops that own endpoints drive its clock. usrsctp's own
     * messages (what it finds wrong with itself or a peer, and the reason before it aborts the process) go to standard
     * error through libc's {@code warnx}, whose signature is the {@code printf}-like one usrsctp calls.
     */
    static void start() throws IOException {
        MemorySegment warnx = Linker.nativeLinker().defaultLookup().find("warnx").orElse(MemorySegment.NULL);
        try {
            Usrsctp.INIT_NOTHREADS.invokeExact((short) 0, OUTPUT_STUB, warnx);
            Usrsctp.ENABLE_CRC32C_OFFLOAD.invokeExact(); // Checksums does it, with the JDK's intrinsic
        } catch (Throwable e) {
            throw new IOException("usrsctp_init_nothreads failed", e);
        }
        running = true;
        LAST_TICK.set(System.nanoTime());
    }

    /**
     * Has {@code loop} look at usrsctp's clock every {@value #TICK_MILLIS} ms, while {@code endpoint} is open: a
     * deadline of the loop's that sets the next. Loop thread.
     */
    static void tickOn(Loop loop, Endpoint endpoint) {
        if (endpoint.open()) {
            loop.schedule(System.nanoTime() + TICK_NANOS, () -> {
                tick();
                tickOn(loop, endpoint);
            });
        }
    }

    /**
     * Advances usrsctp's clock by the whole milliseconds since the last tick, if at least {@value #TICK_MILLIS} have
     * passed and no other loop claimed them first. Alone in usrsctp: its timer emulation races its input path
     * (usrsctp issues 673 and 676). A loop's thread.
     */
    static void tick() {
        long last = LAST_TICK.get();
        int elapsed = (int) TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - last);
        if (elapsed < TICK_MILLIS || !LAST_TICK.compareAndSet(last, last + TimeUnit.MILLISECONDS.toNanos(elapsed))) {
            return;
        }
        TICKS.incrementAndGet();
        LOCK.writeLock().lock();
        try {
            if (running) {
                Usrsctp.HANDLE_TIMERS.invokeExact(elapsed);
            }
        } catch (Throwable e) {
            // usrsctp reports nothing from its timers; the next tick tries again
        } finally {
            LOCK.writeLock().unlock();
        }
    }

    /** Ticks of usrsctp's clock so far, by every loop. */
    static long ticks() {
        return TICKS.get();
    }

    /**
     * Stops usrsctp ({@code usrsctp_finish}, which refuses while any socket exists). Returns whether it stopped;
     * after that no packet or tick reaches it.
     */
    static boolean finish() {
        LOCK.writeLock().lock();
        try {
            if (!running) {
                return true;
            }
            int status = (int) Usrsctp.FINISH.invokeExact();
            if (status == 0) {
                running = false;
            }
            return status == 0;
        } catch (Throwable e) {
            return false;
        } finally {
            LOCK.writeLock().unlock();
        }
    }

    /**
     * Closes a usrsctp socket while no packet and no timer is inside usrsctp: libusrsctp2
     * 0.9.5 frees a socket twice, or writes to it once freed, when its close races with the timer or input
     * path tearing down the same association (seen as heap corruption; usrsctp issue 676).
     */
    static void close(MemorySegment socket) throws Throwable {
        LOCK.writeLock().lock();
        try {
            Usrsctp.CLOSE.invokeExact(socket);
        } finally {
            LOCK.writeLock().unlock();
        }
    }

    /**
     * {@code usrsctp_shutdown(SHUT_WR)}, alone in usrsctp like {@link #close}: it stops the association's timers and
     * queues its SHUTDOWN, the same teardown path. Returns usrsctp's status (0: shutting down).
     */
    static int shutdown(MemorySegment socket, int how) throws Throwable {
        LOCK.writeLock().lock();
        try (Arena arena = Arena.ofConfined()) {
            return (int) Usrsctp.SHUTDOWN.invokeExact(Usrsctp.captureState(arena), socket, how);
        } finally {
            LOCK.writeLock().unlock();
        }
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
                LOCK.readLock().lock();
                try {
                    if (running) {
                        Usrsctp.REGISTER_ADDRESS.invokeExact(link.handle);
                    }
                } catch (Throwable e) {
                    FREE_LINKS.add(index);
                    throw new IOException("usrsctp_register_address failed", e);
                } finally {
                    LOCK.readLock().unlock();
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
            Counters.increment(Counter.SCTP_BAD_CHECKSUMS);
            return; // RFC 9260 §6.8: silently discarded
        }
        link.lastActive = System.nanoTime();
        LOCK.readLock().lock();
        try {
            if (running) {
                Usrsctp.CONNINPUT.invokeExact(link.handle, packet, (long) length, (byte) 0);
            }
        } catch (Throwable e) {
            // a packet usrsctp could not take is a lost packet; SCTP retransmits
        } finally {
            LOCK.readLock().unlock();
        }
    }

    /** SCTP packets sent so far, by every association of the process. */
    static long packetsSent() {
        return PACKETS_SENT.get();
    }

    /** The largest SCTP packet sent so far, in octets (common header and chunks). */
    static int largestPacketSent() {
        return LARGEST_PACKET.get();
    }

    /** usrsctp's {@code conn_output}: on usrsctp's caller's thread, with the whole packet in {@code buffer}. */
    @SuppressWarnings("unused") // called from native code
    private static int output(MemorySegment handle, MemorySegment buffer, long length, byte tos, byte setDf) {
        try {
            Link link = link(handle.address());
            if (link == null) {
                return EHOSTUNREACH;
            }
            int size = (int) length;
            link.lastActive = System.nanoTime();
            PACKETS_SENT.incrementAndGet();
            if (size > LARGEST_PACKET.get()) {
                LARGEST_PACKET.accumulateAndGet(size, Math::max);
            }
            MemorySegment packet = buffer.reinterpret(length);
            Checksums.put(packet, size);
            link.endpoint.send(packet, link);
            return 0;
        } catch (Throwable e) {
            return EIO; // nothing may escape an upcall; SCTP treats the packet as lost
        }
    }
}
