package org.rddp.transport.mpa;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.rddp.posix.Posix;

/**
 * Multipath TCP (RFC 8684, Linux 5.6 and later) under Java's socket channels: a connection whose sockets were opened
 * with {@code IPPROTO_MPTCP} at both ends can carry its byte stream over several paths (subflows), which the kernel's
 * path manager adds ({@code ip mptcp endpoint}, {@code ip mptcp limits}); the application sees one TCP-like stream.
 *
 * <p>The JDK opens TCP sockets only: the protocol is not a parameter of its channels. {@link #bind} therefore makes an
 * open channel's socket an MPTCP one before it connects or listens: it binds the channel (which gives its socket an
 * address to be told apart by), finds that socket's descriptor among the process's ({@code /proc/self/fd}, by the
 * address), opens an MPTCP socket, puts it in the descriptor's place ({@code dup3}, as the JDK's own SDP support once
 * swapped its sockets) and binds and, for a server, listens again at the same address. Nothing of the JDK's internals
 * is reached; the channel goes on as before over the new socket.
 *
 * <p>A host whose kernel has no MPTCP, or has it off ({@code sysctl net.mptcp.enabled}), refuses the socket:
 * {@link #bind} fails and {@link #unavailable()} says why. A peer that does not answer with MPTCP gets a plain TCP
 * connection (RFC 8684 §3.7's fallback): {@link #protocol} tells which a connection runs.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // a downcall declares Throwable: the C calls' failures become IOExceptions
public final class Mptcp {
    /** socket(2)'s protocol for Multipath TCP. */
    public static final int IPPROTO_MPTCP = 262;
    private static final int SOL_MPTCP = 284;
    /** getsockopt(SOL_MPTCP): struct mptcp_info, 48 octets on Linux 6.1, more since; what fits is given. */
    private static final int MPTCP_INFO = 1;
    private static final long MPTCP_INFO_SIZE = 256;
    private static final int MPTCP_TCPINFO = 2;
    private static final int MPTCP_SUBFLOW_ADDRS = 3;
    /** struct mptcp_subflow_data, the header of the subflow arrays: its size, the count, the element sizes. */
    private static final long SUBFLOW_DATA = 16;
    /** struct mptcp_subflow_addrs: the local and the remote address, each a sockaddr_storage. */
    private static final long SUBFLOW_ADDRS = 2 * Posix.SOCKADDR_STORAGE_SIZE;
    /** The struct tcp_info read per subflow: up to tcpi_snd_wnd (Linux 5.4), what follows is not read. */
    private static final long TCP_INFO = 232;
    private static final long TCPI_STATE = 0;
    private static final long TCPI_RTO = 8;
    private static final long TCPI_RTT = 68;
    private static final long TCPI_TOTAL_RETRANS = 100;
    private static final long TCPI_BYTES_RECEIVED = 128;
    private static final long TCPI_BYTES_SENT = 200;
    private static final int TCP_ESTABLISHED = 1;
    /** Subflows asked for at first; more are asked for when the kernel says there are more. */
    private static final int SUBFLOWS = 8;
    private static final String FDS = "/proc/self/fd";

    /** What a connected socket runs. */
    public enum Protocol {
        /** Plain TCP: MPTCP was not asked for, at this end or (for a connection a server accepted) at the other. */
        TCP,
        /** Multipath TCP. */
        MPTCP,
        /** MPTCP was asked for here, and the peer answered with plain TCP (RFC 8684 §3.7): a single path. */
        TCP_FALLBACK
    }

    /**
     * One subflow of a Multipath TCP connection, as the kernel reports it ({@code MPTCP_SUBFLOW_ADDRS},
     * {@code MPTCP_TCPINFO}).
     *
     * @param local           this end's address of it
     * @param remote          the peer's address of it
     * @param established     whether it is in TCP's ESTABLISHED state
     * @param rtt             its smoothed round trip
     * @param rto             its retransmission timeout now
     * @param octetsSent      octets it sent, retransmissions included ({@code tcpi_bytes_sent}; Linux 4.19 and later)
     * @param octetsReceived  octets it received ({@code tcpi_bytes_received})
     * @param retransmissions segments it retransmitted ({@code tcpi_total_retrans})
     */
    public record Subflow(InetSocketAddress local, InetSocketAddress remote, boolean established, Duration rtt,
            Duration rto, long octetsSent, long octetsReceived, long retransmissions) {
        @Override
        public String toString() {
            return local + " -> " + remote + (established ? "" : " (not established)") + ", rtt "
                    + rtt.toNanos() / 1000 + " us, " + octetsSent + " octets sent, " + octetsReceived + " received";
        }
    }

    private Mptcp() {
    }

    /**
     * Why this host opens no MPTCP socket now (its kernel has no MPTCP, or has it off in this network namespace), or
     * null when it does.
     */
    public static String unavailable() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            int fd = (int) Posix.SOCKET.invokeExact(state, Posix.AF_INET, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC,
                    IPPROTO_MPTCP);
            if (fd >= 0) {
                Posix.closeQuietly(fd);
                return null;
            }
            return refusal(Posix.errno(state));
        } catch (Throwable e) {
            return "Multipath TCP needs Linux's C library through java.lang.foreign: " + e;
        }
    }

    /** What a refused MPTCP socket means. */
    private static String refusal(int errno) {
        return switch (errno) {
            case Posix.ENOPROTOOPT -> "Multipath TCP is off on this host (sysctl net.mptcp.enabled is 0 in this "
                    + "network namespace; set it to 1)";
            case Posix.EPROTONOSUPPORT -> "this kernel has no Multipath TCP (Linux 5.6 or later built with "
                    + "CONFIG_MPTCP)";
            default -> "this host refused a Multipath TCP socket: " + Posix.describe(errno);
        };
    }

    /**
     * Binds {@code channel}, open and neither bound nor connected, to {@code local} over an MPTCP socket: it connects
     * as MPTCP from then on. Options set on it before are lost: set them after.
     *
     * @throws IOException if this host opens no MPTCP socket ({@link #unavailable()}), or the bind fails
     */
    public static void bind(SocketChannel channel, SocketAddress local) throws IOException {
        requireAvailable();
        channel.bind(local);
        boolean anyPort = local == null || ((InetSocketAddress) local).getPort() == 0;
        replace((InetSocketAddress) channel.getLocalAddress(), false, 0, anyPort);
    }

    /**
     * Binds {@code server}, open and unbound, to {@code local} and listens there with {@code backlog} over an MPTCP
     * socket: it accepts MPTCP connections, and plain TCP ones from clients that do not ask for MPTCP. Options set on
     * it before are kept only if set again.
     *
     * @throws IOException if this host opens no MPTCP socket ({@link #unavailable()}), or the bind fails
     */
    public static void bind(ServerSocketChannel server, SocketAddress local, int backlog) throws IOException {
        requireAvailable();
        boolean reuse = server.getOption(java.net.StandardSocketOptions.SO_REUSEADDR);
        server.bind(local, backlog);
        replace((InetSocketAddress) server.getLocalAddress(), true, Math.max(1, backlog), false);
        server.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, reuse);
    }

    private static void requireAvailable() throws IOException {
        String why = unavailable();
        if (why != null) {
            throw new IOException(why);
        }
    }

    /**
     * Puts an MPTCP socket in the place of the TCP socket bound to {@code bound} (listening if {@code listening}),
     * bound there too and listening with {@code backlog} if it listened; with {@code anyPort}, a port the kernel chose
     * may be chosen again if another socket took it meanwhile.
     */
    private static void replace(InetSocketAddress bound, boolean listening, int backlog, boolean anyPort)
            throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            MemorySegment address = arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
            MemorySegment length = Posix.intValue(arena, 0);
            int fd = find(arena, bound, null, listening, Posix.IPPROTO_TCP, address, length);
            int domain = Posix.intOption(state, fd, Posix.SOL_SOCKET, Posix.SO_DOMAIN);
            int flags = (int) Posix.FCNTL.invokeExact(state, fd, Posix.F_GETFL, 0);
            int reuse = Posix.intOption(state, fd, Posix.SOL_SOCKET, Posix.SO_REUSEADDR);
            int v6only = domain == Posix.AF_INET6 ? Posix.intOption(state, fd, Posix.IPPROTO_IPV6, Posix.IPV6_V6ONLY)
                    : -1;
            if (domain < 0 || flags < 0) {
                throw new IOException("cannot read the socket's domain or flags: " + Posix.describeErrno(state));
            }
            int mptcp = (int) Posix.SOCKET.invokeExact(state, domain, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC,
                    IPPROTO_MPTCP);
            if (mptcp < 0) {
                throw new IOException(refusal(Posix.errno(state)));
            }
            try {
                if (v6only >= 0) {
                    check(Posix.setIntOption(state, mptcp, Posix.IPPROTO_IPV6, Posix.IPV6_V6ONLY, v6only), state,
                            "IPV6_V6ONLY");
                }
                if (reuse > 0) {
                    check(Posix.setIntOption(state, mptcp, Posix.SOL_SOCKET, Posix.SO_REUSEADDR, 1), state,
                            "SO_REUSEADDR");
                }
                // the TCP socket is closed here, and its address free: it never connected
                check((int) Posix.DUP3.invokeExact(state, mptcp, fd, Posix.O_CLOEXEC), state, "dup3");
            } finally {
                Posix.closeQuietly(mptcp);
            }
            check((int) Posix.FCNTL.invokeExact(state, fd, Posix.F_SETFL, flags), state, "fcntl");
            int size = length.get(JAVA_INT, 0);
            if ((int) Posix.BIND.invokeExact(state, fd, address, size) != 0) {
                if (!anyPort || Posix.errno(state) != Posix.EADDRINUSE) {
                    throw new IOException("cannot bind the Multipath TCP socket to " + bound + " (another socket may "
                            + "have taken the address while it replaced the TCP one): " + Posix.describeErrno(state));
                }
                address.set(Posix.U16_BE, 2, (short) 0); // the channel learns its new port when it connects
                check((int) Posix.BIND.invokeExact(state, fd, address, size), state, "bind");
            }
            if (listening) {
                check((int) Posix.LISTEN.invokeExact(state, fd, backlog), state, "listen");
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("Multipath TCP: " + e, e);
        }
    }

    private static void check(int status, MemorySegment state, String call) throws IOException {
        if (status < 0) {
            throw new IOException("Multipath TCP: " + call + " failed: " + Posix.describeErrno(state));
        }
    }

    /**
     * The descriptor of this process's one socket of {@code protocol} (TCP, MPTCP, or either if 0) bound to
     * {@code local}, connected to {@code remote} (null: unconnected) and listening or not; its address goes to
     * {@code address}, its length to {@code length}.
     */
    private static int find(Arena arena, InetSocketAddress local, InetSocketAddress remote, boolean listening,
            int protocol, MemorySegment address, MemorySegment length) throws Throwable {
        String[] names = new java.io.File(FDS).list();
        if (names == null) {
            throw new IOException("Multipath TCP needs Linux's " + FDS + " to find a channel's socket");
        }
        MemorySegment state = Posix.captureState(arena);
        MemorySegment peer = arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
        int found = -1;
        int matches = 0;
        for (String name : names) {
            int fd = Integer.parseInt(name);
            // an unconnected socket has no peer: one that has is not it (an accepted socket shares its listener's
            // address)
            if (!bound(state, fd, local, address, length, false) || (remote != null
                    ? !bound(state, fd, remote, peer, Posix.intValue(arena, 0), true)
                    : named(state, fd, peer, Posix.intValue(arena, 0)))) {
                continue;
            }
            int is = Posix.intOption(state, fd, Posix.SOL_SOCKET, Posix.SO_PROTOCOL);
            if ((protocol == 0 ? is == Posix.IPPROTO_TCP || is == IPPROTO_MPTCP : is == protocol)
                    && (Posix.intOption(state, fd, Posix.SOL_SOCKET, Posix.SO_ACCEPTCONN) == 1) == listening) {
                found = fd;
                matches++;
            }
        }
        if (matches != 1) {
            throw new IOException("found " + matches + " sockets at " + local + (remote == null ? "" : " to " + remote)
                    + " in this process where one was expected: cannot tell the channel's");
        }
        bound(state, found, local, address, length, false); // the one found's, not the last looked at
        return found;
    }

    /** Whether {@code fd} is an IP socket whose name (its peer's if {@code peer}) is {@code expected}. */
    private static boolean bound(MemorySegment state, int fd, InetSocketAddress expected, MemorySegment address,
            MemorySegment length, boolean peer) throws Throwable {
        length.set(JAVA_INT, 0, (int) Posix.SOCKADDR_STORAGE_SIZE);
        int status = peer ? (int) Posix.GETPEERNAME.invokeExact(state, fd, address, length)
                : (int) Posix.GETSOCKNAME.invokeExact(state, fd, address, length);
        short family = address.get(JAVA_SHORT, 0);
        if (status != 0 || (family != Posix.AF_INET && family != Posix.AF_INET6)) {
            return false;
        }
        InetSocketAddress is = Posix.address(address);
        return is.getPort() == expected.getPort() && (is.getAddress().equals(expected.getAddress())
                || is.getAddress().isAnyLocalAddress() && expected.getAddress().isAnyLocalAddress());
    }

    /** Whether {@code fd} has a peer. */
    private static boolean named(MemorySegment state, int fd, MemorySegment address, MemorySegment length)
            throws Throwable {
        length.set(JAVA_INT, 0, (int) Posix.SOCKADDR_STORAGE_SIZE);
        return (int) Posix.GETPEERNAME.invokeExact(state, fd, address, length) == 0;
    }

    /** The descriptor of {@code channel}'s socket, connected: found by its two addresses. */
    static int descriptor(SocketChannel channel) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            return find(arena, (InetSocketAddress) channel.getLocalAddress(),
                    (InetSocketAddress) channel.getRemoteAddress(), false, 0,
                    arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8), Posix.intValue(arena, 0));
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("Multipath TCP: " + e, e);
        }
    }

    /** What {@code channel}, connected, runs: TCP, MPTCP, or TCP after MPTCP was asked for and the peer refused it. */
    public static Protocol protocol(SocketChannel channel) throws IOException {
        return protocol(descriptor(channel));
    }

    /**
     * What {@code connection} runs under MPA: TCP, MPTCP, or TCP after MPTCP was asked for and refused; null if it is
     * not an MPA connection (or no longer has its stream).
     */
    public static Protocol protocol(org.rddp.verbs.Connection connection) {
        return connection.queuePair().stream() instanceof MpaStream stream ? stream.protocol() : null;
    }

    /**
     * What the connected socket {@code fd} runs: an MPTCP socket answers MPTCP_INFO, one fallen back to TCP hands
     * the call to its TCP subflow, which refuses it (TCP_IS_MPTCP would say so too, but Linux 6.1 refuses it on an
     * MPTCP socket: measured in the VM).
     */
    static Protocol protocol(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            int protocol = Posix.intOption(state, fd, Posix.SOL_SOCKET, Posix.SO_PROTOCOL);
            if (protocol != IPPROTO_MPTCP) {
                return Protocol.TCP;
            }
            MemorySegment info = arena.allocate(MPTCP_INFO_SIZE, 8);
            MemorySegment length = Posix.intValue(arena, (int) MPTCP_INFO_SIZE);
            return (int) Posix.GETSOCKOPT.invokeExact(state, fd, SOL_MPTCP, MPTCP_INFO, info, length) == 0
                    ? Protocol.MPTCP : Protocol.TCP_FALLBACK;
        } catch (Throwable e) {
            throw new IOException("Multipath TCP: " + e, e);
        }
    }

    /**
     * The subflows of {@code channel}'s connection now, the first one first; empty if it does not run MPTCP.
     */
    public static List<Subflow> subflows(SocketChannel channel) throws IOException {
        return subflows(descriptor(channel));
    }

    /** The subflows of the connected socket {@code fd} now; empty if it does not run MPTCP. */
    static List<Subflow> subflows(int fd) throws IOException {
        if (protocol(fd) != Protocol.MPTCP) {
            return List.of();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            int wanted = SUBFLOWS;
            for (int attempt = 0; attempt < 4; attempt++) {
                MemorySegment addresses = subflowData(arena, state, fd, MPTCP_SUBFLOW_ADDRS, SUBFLOW_ADDRS, wanted);
                MemorySegment infos = subflowData(arena, state, fd, MPTCP_TCPINFO, TCP_INFO, wanted);
                int count = addresses.get(JAVA_INT, 4);
                if (count != infos.get(JAVA_INT, 4) || count > wanted) {
                    wanted = Math.max(wanted, count); // a subflow came or went between the two calls: again
                    continue;
                }
                long addressSize = addresses.get(JAVA_INT, 12);
                long infoSize = infos.get(JAVA_INT, 12);
                List<Subflow> subflows = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    MemorySegment pair = addresses.asSlice(SUBFLOW_DATA + i * addressSize, SUBFLOW_ADDRS);
                    MemorySegment info = infos.asSlice(SUBFLOW_DATA + i * infoSize, TCP_INFO);
                    subflows.add(new Subflow(Posix.address(pair), Posix.address(pair.asSlice(
                            Posix.SOCKADDR_STORAGE_SIZE)), info.get(JAVA_BYTE, TCPI_STATE) == TCP_ESTABLISHED,
                            Duration.ofNanos(1000L * Integer.toUnsignedLong(info.get(JAVA_INT, TCPI_RTT))),
                            Duration.ofNanos(1000L * Integer.toUnsignedLong(info.get(JAVA_INT, TCPI_RTO))),
                            info.get(JAVA_LONG, TCPI_BYTES_SENT), info.get(JAVA_LONG, TCPI_BYTES_RECEIVED),
                            Integer.toUnsignedLong(info.get(JAVA_INT, TCPI_TOTAL_RETRANS))));
                }
                return List.copyOf(subflows);
            }
            throw new IOException("Multipath TCP: the subflows kept changing while they were read");
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("Multipath TCP: " + e, e);
        }
    }

    /**
     * getsockopt(SOL_MPTCP, {@code option}) into a struct mptcp_subflow_data followed by room for {@code count}
     * elements of {@code size} octets, zeroed.
     */
    private static MemorySegment subflowData(Arena arena, MemorySegment state, int fd, int option, long size,
            int count) throws Throwable {
        MemorySegment data = arena.allocate(SUBFLOW_DATA + count * size, 8);
        data.set(JAVA_INT, 0, (int) SUBFLOW_DATA); // size_subflow_data; num_subflows and size_kernel stay 0
        data.set(JAVA_INT, 12, (int) size); // size_user
        MemorySegment length = Posix.intValue(arena, (int) data.byteSize());
        if ((int) Posix.GETSOCKOPT.invokeExact(state, fd, SOL_MPTCP, option, data, length) != 0) {
            throw new IOException("Multipath TCP: reading the subflows failed: " + Posix.describeErrno(state));
        }
        return data;
    }
}
