package org.rddp.transport.sctp.kernel;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.rddp.posix.Posix;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.transport.sctp.io.EpollPoller;
import org.rddp.transport.sctp.io.LoopListening;
import org.rddp.transport.sctp.ProtocolParameters;
import org.rddp.transport.sctp.io.SharedLoops;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;

/**
 * The Linux kernel's SCTP, driven entirely through {@code java.lang.foreign}: libc for the socket and lksctp-tools
 * (Debian's libsctp1) for {@code sctp_sendv}/{@code sctp_recvv}. Not through {@code com.sun.nio.sctp} or Netty:
 * neither can set the Adaptation Layer Indication RFC 5043 §5.1 requires in the INIT, and the JDK's native code
 * drops the peer's {@code SCTP_ADAPTATION_INDICATION} notification; mixing their channels with our own calls on
 * the same descriptor would leave two owners of its state.
 *
 * <p>The kernel does path MTU discovery; an association's largest unfragmented message is its fragmentation
 * point ({@code SCTP_STATUS}). RFC 5043 §10 (fewer than 32768 unacknowledged chunks per stream): the kernel charges
 * every queued chunk at least its buffer overhead (over 400 octets) against the send buffer, and the send buffer
 * here is {@value #SEND_BUFFER} octets (the kernel doubles it), so at most about ten thousand chunks are queued.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
public final class KernelSctpStack implements SctpStack {
    private static final int SEND_BUFFER = 2 << 20;
    private static final int RECEIVE_BUFFER = 4 << 20;
    private static final int EPROTONOSUPPORT = 93;

    private KernelSctpStack() {
    }

    /**
     * Why the kernel's SCTP cannot be used here, with what to do about it, or null if it can: lksctp-tools' library
     * must be installed and the kernel must open an SCTP socket.
     */
    public static String unavailable() {
        String missing = Native.libraryMissing();
        if (missing != null) {
            return "kernel SCTP unavailable: " + missing;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            int fd = (int) Posix.SOCKET.invokeExact(state, Posix.AF_INET, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC,
                    Posix.IPPROTO_SCTP);
            if (fd < 0) {
                int errno = Posix.errno(state);
                return errno == EPROTONOSUPPORT ? "kernel SCTP unavailable: " + SctpModule.why()
                        : "kernel SCTP unavailable: socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP) failed with "
                                + Posix.describe(errno);
            }
            int ignored = (int) Posix.CLOSE.invokeExact(state, fd);
            return null;
        } catch (Throwable e) {
            return "kernel SCTP could not be probed: " + e;
        }
    }

    /** The kernel's SCTP; fails, saying why and what to do, where {@link #unavailable} is not null. */
    public static KernelSctpStack open() throws IOException {
        String why = unavailable();
        if (why != null) {
            throw new IOException(why);
        }
        return new KernelSctpStack();
    }

    @Override
    public long socketBufferOctets() {
        return (long) SEND_BUFFER + RECEIVE_BUFFER;
    }

    @Override
    public String name() {
        return "kernel";
    }

    @Override
    public Poller newPoller() {
        return new EpollPoller();
    }

    @Override
    public Loop sharedLoop() {
        return SharedLoops.of("kernel-sctp-loop");
    }

    /**
     * A non-blocking connect whose completion the loop's epoll reports (the socket turns writable); the outcome is
     * the socket's {@code SO_ERROR}. Loop thread.
     */
    @Override
    public Connecting connect(Loop loop, InetSocketAddress local, java.util.List<InetAddress> moreLocal,
            InetSocketAddress remote, int streams, int adaptation, ProtocolParameters parameters, Connected done)
            throws IOException {
        if (!loop.inLoop()) {
            throw new IllegalStateException("a connect starts on the loop it will live on, " + loop);
        }
        EpollPoller poller = (EpollPoller) loop.poller();
        int family = Posix.family(remote.getAddress());
        int fd = open(family, streams, adaptation, parameters);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            bind(fd, arena, state, Posix.bindable(local, family));
            bindMore(fd, arena, state, moreLocal, moreLocal.isEmpty() ? 0 : boundPort(fd, arena, state));
            MemorySegment to = Posix.sockaddr(arena, remote);
            int status = (int) Posix.CONNECT.invokeExact(state, fd, to, (int) to.byteSize());
            if (status != 0 && Posix.errno(state) != Posix.EINPROGRESS) {
                throw new IOException("SCTP connect to " + remote + " failed: " + Posix.describeErrno(state));
            }
            return new PendingConnect(fd, remote, poller, done);
        } catch (IOException | RuntimeException e) {
            closeQuietly(fd);
            throw e;
        } catch (Throwable e) {
            closeQuietly(fd);
            throw new IOException(e);
        }
    }

    /** A connect waiting for the handshake: watched for writability by the loop's epoll. Loop thread. */
    private static final class PendingConnect implements Connecting {
        private final int fd;
        private final InetSocketAddress remote;
        private final EpollPoller poller;
        private final Connected done;
        private final int registration;
        private boolean over;

        PendingConnect(int fd, InetSocketAddress remote, EpollPoller poller, Connected done) throws IOException {
            this.fd = fd;
            this.remote = remote;
            this.poller = poller;
            this.done = done;
            this.registration = poller.register(fd, Posix.EPOLLOUT, events -> finish());
        }

        /** The handshake ended one way or the other: SO_ERROR says which. */
        private void finish() {
            if (over) {
                return;
            }
            over = true;
            poller.deregister(registration, fd);
            int errno;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = Posix.captureState(arena);
                MemorySegment error = Posix.intValue(arena, 0);
                MemorySegment length = Posix.intValue(arena, 4);
                int status = (int) Posix.GETSOCKOPT.invokeExact(state, fd, Posix.SOL_SOCKET, Posix.SO_ERROR, error,
                        length);
                errno = status != 0 ? Posix.errno(state) : error.get(JAVA_INT, 0);
            } catch (Throwable e) {
                closeQuietly(fd);
                done.done(null, new IOException("SCTP connect to " + remote + " failed", e));
                return;
            }
            if (errno != 0) {
                closeQuietly(fd);
                done.done(null, new IOException("SCTP connect to " + remote + " failed: " + Posix.describe(errno)));
                return;
            }
            KernelSctpSocket socket;
            try {
                socket = KernelSctpSocket.of(fd, remote, poller);
            } catch (IOException | RuntimeException e) {
                closeQuietly(fd);
                done.done(null, e instanceof IOException io ? io : new IOException(e));
                return;
            }
            done.done(socket, null);
        }

        @Override
        public void abandon() {
            if (!over) {
                over = true;
                poller.deregister(registration, fd);
                closeQuietly(fd);
            }
        }
    }

    @Override
    public Listening listen(Loop loop, InetSocketAddress local, java.util.List<InetAddress> moreLocal, int streams,
            int adaptation, ProtocolParameters parameters) throws IOException {
        int fd = open(Posix.family(local.getAddress()), streams, adaptation, parameters);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            bind(fd, arena, state, local);
            int port = local.getPort();
            if (port == 0 && !moreLocal.isEmpty()) {
                port = boundPort(fd, arena, state); // the other addresses take the port the first one got
            }
            bindMore(fd, arena, state, moreLocal, port);
            int status = (int) Posix.LISTEN.invokeExact(state, fd, 64);
            if (status != 0) {
                throw new IOException("SCTP listen on " + local + " failed: " + Posix.describeErrno(state));
            }
            MemorySegment bound = arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
            MemorySegment length = Posix.intValue(arena, (int) Posix.SOCKADDR_STORAGE_SIZE);
            status = (int) Posix.GETSOCKNAME.invokeExact(state, fd, bound, length);
            if (status != 0) {
                throw new IOException("getsockname failed: " + Posix.describeErrno(state));
            }
            return new KernelListening(fd, new InetSocketAddress(local.getAddress(), Posix.address(bound).getPort()),
                    loop);
        } catch (IOException e) {
            closeQuietly(fd);
            throw e;
        } catch (Throwable e) {
            closeQuietly(fd);
            throw new IOException(e);
        }
    }

    /**
     * A non-blocking socket of {@code family} (AF_INET, or AF_INET6) with what every DDP association needs
     * (RFC 5043 §5.1, §8, §10); accepts inherit it.
     */
    private static int open(int family, int streams, int adaptation, ProtocolParameters parameters)
            throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            int fd = (int) Posix.SOCKET.invokeExact(state, family,
                    Posix.SOCK_STREAM | Posix.SOCK_NONBLOCK | Posix.SOCK_CLOEXEC, Posix.IPPROTO_SCTP);
            if (fd < 0) {
                throw new IOException("kernel SCTP socket failed: " + Posix.describeErrno(state) + " ("
                        + unavailable() + ")");
            }
            try {
                MemorySegment init = arena.allocate(8, 2);
                init.set(JAVA_SHORT, 0, (short) streams); // equal outbound and inbound (RFC 5043 §8)
                init.set(JAVA_SHORT, 2, (short) streams);
                init.set(JAVA_SHORT, Native.INITMSG_MAX_ATTEMPTS, (short) parameters.maxInitRetransmits());
                setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_INITMSG, init, "stream counts");
                setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_ADAPTATION_LAYER,
                        Posix.intValue(arena, adaptation), "Adaptation Layer Indication");
                setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_RECVRCVINFO, Posix.intValue(arena, 1),
                        "rcvinfo");
                setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_NODELAY, Posix.intValue(arena, 1), "nodelay");
                failureDetection(fd, state, arena, parameters);
                try { // a path turning potentially failed is when traffic moves: say so (Linux 5.5 on)
                    MemorySegment expose = arena.allocate(8, 4); // struct sctp_assoc_value: every association
                    expose.set(JAVA_INT, 4, Native.SCTP_PF_EXPOSE_ENABLE);
                    setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_EXPOSE_POTENTIALLY_FAILED_STATE, expose,
                            "potentially-failed events");
                } catch (IOException older) {
                    // an older kernel moves traffic all the same, and reports the path once it fails
                }
                MemorySegment events = arena.allocate(Native.EVENTS_SIZE);
                events.set(java.lang.foreign.ValueLayout.JAVA_BYTE, Native.EVENT_ASSOCIATION, (byte) 1);
                events.set(java.lang.foreign.ValueLayout.JAVA_BYTE, Native.EVENT_ADDRESS, (byte) 1); // paths
                events.set(java.lang.foreign.ValueLayout.JAVA_BYTE, Native.EVENT_SHUTDOWN, (byte) 1);
                events.set(java.lang.foreign.ValueLayout.JAVA_BYTE, Native.EVENT_ADAPTATION, (byte) 1);
                setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_EVENTS, events, "events");
                // no autotuning in kernel SCTP: the receive buffer is the window (half of it), the send buffer what
                // may be in flight; capped by net.core.rmem_max and wmem_max (docs/transports.md). Both are set even
                // where the cap makes the receive buffer smaller than SCTP's default (net.sctp.sctp_rmem): on the
                // default one a 16 MiB Write crossed at 0.3 MB/s in the VM, on the set one in a second
                setsockopt(fd, state, Posix.SOL_SOCKET, Posix.SO_SNDBUF, Posix.intValue(arena, SEND_BUFFER),
                        "send buffer");
                setsockopt(fd, state, Posix.SOL_SOCKET, Posix.SO_RCVBUF, Posix.intValue(arena, RECEIVE_BUFFER),
                        "receive buffer");
                return fd;
            } catch (IOException | RuntimeException e) {
                closeQuietly(fd);
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /**
     * The endpoint's defaults for its associations (accepted ones take the listener's): RTO, retransmissions,
     * heartbeats, the SACK delay.
     */
    private static void failureDetection(int fd, MemorySegment state, Arena arena, ProtocolParameters parameters)
            throws IOException {
        MemorySegment rto = arena.allocate(Native.RTOINFO_SIZE, 4);
        rto.set(JAVA_INT, 4, (int) parameters.rtoInitial().toMillis());
        rto.set(JAVA_INT, 8, (int) parameters.rtoMax().toMillis());
        rto.set(JAVA_INT, 12, (int) parameters.rtoMin().toMillis());
        setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_RTOINFO, rto, "RTO bounds");
        MemorySegment association = arena.allocate(Native.ASSOCPARAMS_SIZE, 4);
        association.set(JAVA_SHORT, Native.ASSOCPARAMS_MAX_RETRANS, (short) parameters.associationMaxRetrans());
        setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_ASSOCINFO, association, "Association.Max.Retrans");
        MemorySegment paths = arena.allocate(Native.PADDRPARAMS_SIZE, 4);
        paths.set(JAVA_INT_UNALIGNED, Native.PADDRPARAMS_HB_INTERVAL, (int) parameters.hbInterval().toMillis());
        paths.set(JAVA_SHORT_UNALIGNED, Native.PADDRPARAMS_PATH_MAX_RETRANS, (short) parameters.pathMaxRetrans());
        paths.set(JAVA_INT_UNALIGNED, Native.PADDRPARAMS_FLAGS, Native.SPP_HB_ENABLE);
        setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_PEER_ADDR_PARAMS, paths, "heartbeats");
        MemorySegment sack = arena.allocate(Native.SACK_INFO_SIZE, 4); // the frequency 0: left as it is
        sack.set(JAVA_INT, Native.SACK_INFO_DELAY, (int) parameters.sackDelay().toMillis());
        setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_DELAYED_SACK, sack, "SACK delay");
        MemorySegment thresholds = arena.allocate(Native.PADDRTHLDS_SIZE, 8);
        thresholds.set(JAVA_SHORT, Native.PADDRTHLDS_PATH_MAX_RETRANS, (short) parameters.pathMaxRetrans());
        thresholds.set(JAVA_SHORT, Native.PADDRTHLDS_PF, (short) parameters.pfThreshold());
        setsockopt(fd, state, Posix.IPPROTO_SCTP, Native.SCTP_PEER_ADDR_THLDS, thresholds,
                "potentially-failed threshold");
    }

    static void setsockopt(int fd, MemorySegment state, int level, int option, MemorySegment value,
            String what) throws IOException {
        try {
            int status = (int) Posix.SETSOCKOPT.invokeExact(state, fd, level, option, value, (int) value.byteSize());
            if (status != 0) {
                throw new IOException("setsockopt(" + what + ") failed: " + Posix.describeErrno(state));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /**
     * Adds {@code more} addresses, at {@code port}, to the socket's binding (sctp_bindx, SCTP_BINDX_ADD_ADDR): the
     * association's own further paths, announced in its INIT or INIT ACK (multi-homing, RFC 9260 §6.4).
     */
    private static void bindMore(int fd, Arena arena, MemorySegment state, java.util.List<InetAddress> more, int port)
            throws Throwable {
        if (more.isEmpty()) {
            return;
        }
        java.util.List<MemorySegment> addresses = new java.util.ArrayList<>();
        long total = 0;
        for (InetAddress address : more) {
            MemorySegment one = Posix.sockaddr(arena, new InetSocketAddress(address, port));
            addresses.add(one);
            total += one.byteSize();
        }
        MemorySegment packed = arena.allocate(total, 4);
        long at = 0;
        for (MemorySegment one : addresses) {
            MemorySegment.copy(one, 0, packed, at, one.byteSize());
            at += one.byteSize();
        }
        int status = (int) Posix.SETSOCKOPT.invokeExact(state, fd, Posix.IPPROTO_SCTP, Native.SCTP_SOCKOPT_BINDX_ADD,
                packed, (int) total);
        if (status != 0) {
            throw new IOException("SCTP bind to " + more + " as further paths failed: " + Posix.describeErrno(state));
        }
    }

    /** The port the socket is bound to. */
    private static int boundPort(int fd, Arena arena, MemorySegment state) throws Throwable {
        MemorySegment bound = arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
        int status = (int) Posix.GETSOCKNAME.invokeExact(state, fd, bound,
                Posix.intValue(arena, (int) Posix.SOCKADDR_STORAGE_SIZE));
        if (status != 0) {
            throw new IOException("getsockname failed: " + Posix.describeErrno(state));
        }
        return Posix.address(bound).getPort();
    }

    private static void bind(int fd, Arena arena, MemorySegment state, InetSocketAddress local) throws Throwable {
        MemorySegment address = Posix.sockaddr(arena, local);
        int status = (int) Posix.BIND.invokeExact(state, fd, address, (int) address.byteSize());
        if (status != 0) {
            throw new IOException("SCTP bind to " + local + " failed: " + Posix.describeErrno(state));
        }
    }

    private static void closeQuietly(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            int ignored = (int) Posix.CLOSE.invokeExact(Posix.captureState(arena), fd);
        } catch (Throwable e) {
            // already failing: the first error is the one to report
        }
    }

    /** Sockets belong to their owners; the kernel's stack needs no stopping. */
    @Override
    public void close() {
        // nothing to release
    }

    /** A listening socket whose readiness schedules accepts on its loop. */
    private static final class KernelListening extends LoopListening {
        private final int fd;
        private final EpollPoller poller;
        private final int id;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment state = Posix.captureState(arena);
        private final MemorySegment peer = arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
        private final MemorySegment peerLength = arena.allocate(JAVA_INT);

        KernelListening(int fd, InetSocketAddress address, Loop loop) throws IOException {
            super(address, loop);
            this.fd = fd;
            this.poller = (EpollPoller) loop.poller();
            this.id = poller.register(fd, Posix.EPOLLIN | Posix.EPOLLET, events -> ready());
        }

        @Override
        protected SctpSocket acceptOne() throws IOException {
            int accepted;
            try {
                peerLength.set(JAVA_INT, 0, (int) Posix.SOCKADDR_STORAGE_SIZE);
                accepted = (int) Posix.ACCEPT4.invokeExact(state, fd, peer, peerLength,
                        Posix.SOCK_NONBLOCK | Posix.SOCK_CLOEXEC);
            } catch (Throwable e) {
                throw new IOException(e);
            }
            if (accepted < 0) {
                return null; // EAGAIN, or an association that failed meanwhile: the poller signals the next
            }
            try {
                return KernelSctpSocket.of(accepted, Posix.address(peer), poller);
            } catch (IOException e) {
                closeQuietly(accepted);
                throw e;
            }
        }

        @Override
        protected void closeNative() {
            closeQuietly(fd);
            poller.deregister(id, -1);
        }
    }
}
