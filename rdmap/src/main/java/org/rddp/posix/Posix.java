package org.rddp.posix;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * The C library's socket, epoll and eventfd calls the transports use (both SCTP backends; Multipath TCP under MPA),
 * through {@code java.lang.foreign} with errno captured, and Linux x86-64's constants and layouts for them. The
 * protocol-specific calls and constants stay with each transport (the kernel's SCTP and usrsctp's differ).
 */
@SuppressWarnings({"checkstyle:IllegalCatch", "restricted"}) // native access is the point of this class
public final class Posix {
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int IPPROTO_IPV6 = 41;
    public static final int IPV6_MTU_DISCOVER = 23;
    public static final int IPV6_V6ONLY = 26;
    public static final int IP_MTU = 14;
    public static final int IPV6_MTU = 24;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int IPPROTO_IP = 0;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_SCTP = 132;
    public static final int SOL_SOCKET = 1;
    public static final int SO_REUSEADDR = 2;
    public static final int SO_ERROR = 4;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_LINGER = 13;
    public static final int SO_ACCEPTCONN = 30;
    public static final int SO_PROTOCOL = 38;
    public static final int SO_DOMAIN = 39;
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_CLOEXEC = 0x80000;
    public static final int IP_MTU_DISCOVER = 10;
    /** Always set the Don't Fragment bit (RFC 5043 §9: the path MTU is chosen so that nothing fragments). */
    public static final int IP_PMTUDISC_DO = 2;
    /** IP_MTU_DISCOVER / IPV6_MTU_DISCOVER: the kernel fragments what exceeds the path MTU (no Don't Fragment). */
    public static final int IP_PMTUDISC_DONT = 0;
    /** sendto: larger than the path MTU the kernel knows, with Don't Fragment (it learned a smaller one). */
    public static final int EMSGSIZE = 90;
    public static final int SHUT_WR = 1;
    public static final short POLLOUT = 0x4;

    public static final int EPERM = 1;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int ENOPROTOOPT = 92;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EINPROGRESS = 115;

    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLLIN = 0x1;
    public static final int EPOLLOUT = 0x4;
    public static final int EPOLLERR = 0x8;
    public static final int EPOLLHUP = 0x10;
    public static final int EPOLLRDHUP = 0x2000;
    public static final int EPOLLET = 1 << 31;
    /** struct epoll_event is packed on x86-64: events, then the 64-bit data. */
    public static final long EPOLL_EVENT_SIZE = 12;
    public static final int EFD_NONBLOCK = 0x800;
    public static final int EFD_CLOEXEC = 0x80000;
    public static final long SOCKADDR_IN_SIZE = 16;
    public static final long SOCKADDR_IN6_SIZE = 28;
    /** Room for any socket address a call may write (sockaddr_storage). */
    public static final long SOCKADDR_STORAGE_SIZE = 128;

    public static final ValueLayout.OfShort U16_BE = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfInt U32_BE = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfLong EPOLL_DATA = JAVA_LONG.withByteAlignment(4);

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    public static final MethodHandle SOCKET = libc("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT));
    public static final MethodHandle BIND = libc("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    public static final MethodHandle LISTEN = libc("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    public static final MethodHandle ACCEPT4 = libc("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            ADDRESS, JAVA_INT));
    public static final MethodHandle CONNECT = libc("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT));
    public static final MethodHandle POLL = libc("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG,
            JAVA_INT));
    public static final MethodHandle SETSOCKOPT = libc("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    public static final MethodHandle GETSOCKOPT = libc("getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle GETSOCKNAME = libc("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            ADDRESS, ADDRESS));
    public static final MethodHandle GETPEERNAME = libc("getpeername", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            ADDRESS, ADDRESS));
    public static final MethodHandle DUP3 = libc("dup3", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT));
    /** fcntl with an int argument (F_GETFL, F_SETFL): variadic from its third. */
    public static final MethodHandle FCNTL = LINKER.downcallHandle(LINKER.defaultLookup().find("fcntl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
            Linker.Option.captureCallState("errno"));
    public static final MethodHandle SHUTDOWN = libc("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    public static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    public static final MethodHandle SENDTO = libc("sendto", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    public static final MethodHandle RECVFROM = libc("recvfrom", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle READ = libc("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    public static final MethodHandle WRITE = libc("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    public static final MethodHandle EPOLL_CREATE1 = libc("epoll_create1", FunctionDescriptor.of(JAVA_INT,
            JAVA_INT));
    public static final MethodHandle EPOLL_CTL = libc("epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT, ADDRESS));
    public static final MethodHandle EPOLL_WAIT = libc("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            ADDRESS, JAVA_INT, JAVA_INT));
    public static final MethodHandle EVENTFD = libc("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(LINKER.defaultLookup().find("strerror")
            .orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Posix() {
    }

    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("libc lacks " + name));
        return LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }

    /** A segment to pass as the captured call state. */
    public static MemorySegment captureState(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    /** errno as the last call with {@code state} left it. */
    public static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** The C library's text for {@code errno}, with the number. */
    public static String describe(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.reinterpret(256).getString(0) + " (errno " + errno + ")";
        } catch (Throwable e) {
            return "errno " + errno;
        }
    }

    /** The text for the errno {@code state} holds. */
    public static String describeErrno(MemorySegment state) {
        return describe(errno(state));
    }

    /**
     * A sockaddr_in for an IPv4 socket address, a sockaddr_in6 for an IPv6 one (with its scope id: a link-local
     * address names its interface), sized exactly: pass {@code byteSize()} as its length. A null address is IPv4's
     * wildcard.
     */
    public static MemorySegment sockaddr(Arena arena, InetSocketAddress address) throws UnknownHostException {
        InetAddress ip = address.getAddress();
        if (ip instanceof java.net.Inet6Address v6) {
            MemorySegment sockaddr = arena.allocate(SOCKADDR_IN6_SIZE, 4);
            sockaddr.set(JAVA_SHORT, 0, (short) AF_INET6);
            sockaddr.set(U16_BE, 2, (short) address.getPort());
            MemorySegment.copy(MemorySegment.ofArray(v6.getAddress()), 0, sockaddr, 8, 16);
            sockaddr.set(JAVA_INT, 24, v6.getScopeId());
            return sockaddr;
        }
        if (ip != null && address.isUnresolved()) {
            throw new UnknownHostException("unresolved: " + address);
        }
        MemorySegment sockaddr = arena.allocate(SOCKADDR_IN_SIZE, 4);
        sockaddr.set(JAVA_SHORT, 0, (short) AF_INET);
        sockaddr.set(U16_BE, 2, (short) address.getPort());
        byte[] bytes = ip == null ? new byte[4] : ip.getAddress();
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, sockaddr, 4, 4);
        return sockaddr;
    }

    /** The socket address in a sockaddr_in or sockaddr_in6 (a segment of at least {@link #SOCKADDR_IN6_SIZE}). */
    public static InetSocketAddress address(MemorySegment sockaddr) throws UnknownHostException {
        int port = sockaddr.get(U16_BE, 2) & 0xFFFF;
        if (sockaddr.get(JAVA_SHORT, 0) == AF_INET6) {
            byte[] ip = new byte[16];
            MemorySegment.copy(sockaddr, 8, MemorySegment.ofArray(ip), 0, 16);
            int scope = sockaddr.get(JAVA_INT, 24);
            InetAddress address = scope != 0 ? java.net.Inet6Address.getByAddress(null, ip, scope)
                    : InetAddress.getByAddress(ip); // a v4-mapped one comes back as IPv4
            return new InetSocketAddress(address, port);
        }
        byte[] ip = new byte[4];
        MemorySegment.copy(sockaddr, 4, MemorySegment.ofArray(ip), 0, 4);
        return new InetSocketAddress(InetAddress.getByAddress(ip), port);
    }

    /**
     * {@code local} to bind a socket of {@code family} to: itself, or, when it is a wildcard (or null) of the other
     * family, this family's wildcard.
     */
    public static InetSocketAddress bindable(InetSocketAddress local, int family) throws UnknownHostException {
        InetAddress address = local.getAddress();
        if ((address == null || address.isAnyLocalAddress()) && family(address) != family) {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[family == AF_INET6 ? 16 : 4]),
                    local.getPort());
        }
        return local;
    }

    /**
     * The path MTU the kernel knows towards {@code remote} now (IP_MTU of a UDP socket connected there: the route's
     * MTU, what path MTU discovery learned, less what IPsec adds to every packet on the way), or -1 when it will not
     * say. No packet is sent.
     */
    public static int pathMtu(InetAddress remote) {
        boolean v6 = family(remote) == AF_INET6;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = captureState(arena);
            int fd = (int) SOCKET.invokeExact(state, family(remote), SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                return -1;
            }
            try {
                MemorySegment to = sockaddr(arena, new InetSocketAddress(remote, 9));
                if ((int) CONNECT.invokeExact(state, fd, to, (int) to.byteSize()) != 0) {
                    return -1;
                }
                MemorySegment mtu = intValue(arena, 0);
                MemorySegment length = intValue(arena, 4);
                int status = (int) GETSOCKOPT.invokeExact(state, fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
                        v6 ? IPV6_MTU : IP_MTU, mtu, length);
                return status == 0 ? mtu.get(JAVA_INT, 0) : -1;
            } finally {
                closeQuietly(fd);
            }
        } catch (Throwable e) {
            return -1;
        }
    }

    /** The address family of {@code address}: AF_INET6 for IPv6, else AF_INET (null: IPv4's wildcard). */
    public static int family(InetAddress address) {
        return address instanceof java.net.Inet6Address ? AF_INET6 : AF_INET;
    }

    /** An int option value. */
    public static MemorySegment intValue(Arena arena, int value) {
        MemorySegment segment = arena.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        return segment;
    }

    /** The int socket option {@code name} at {@code level} of {@code fd}, or -1 with errno in {@code state}. */
    public static int intOption(MemorySegment state, int fd, int level, int name) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = intValue(arena, 0);
            MemorySegment length = intValue(arena, 4);
            return (int) GETSOCKOPT.invokeExact(state, fd, level, name, value, length) == 0 ? value.get(JAVA_INT, 0)
                    : -1;
        }
    }

    /** Sets the int socket option {@code name} at {@code level} of {@code fd}; 0, or -1 with errno in {@code state}. */
    public static int setIntOption(MemorySegment state, int fd, int level, int name, int value) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            return (int) SETSOCKOPT.invokeExact(state, fd, level, name, intValue(arena, value), 4);
        }
    }

    /** Sets both socket buffers of {@code fd} to {@code size} octets; the kernel may grant less. */
    public static void socketBuffers(MemorySegment state, int fd, int size) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = intValue(arena, size);
            int ignored = (int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_RCVBUF, value, 4);
            ignored = (int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_SNDBUF, value, 4);
        }
    }

    /**
     * Sends {@code packet} on {@code fd} to the sockaddr {@code to}.
     *
     * @return 0, or the errno it failed with ({@link #EMSGSIZE}: larger than the path MTU the kernel knows)
     */
    public static int sendTo(MemorySegment state, int fd, MemorySegment packet, MemorySegment to)
            throws IOException {
        long sent;
        try {
            sent = (long) SENDTO.invokeExact(state, fd, packet, packet.byteSize(), 0, to, (int) to.byteSize());
        } catch (Throwable e) {
            throw new IOException(e);
        }
        return sent < 0 ? errno(state) : 0;
    }

    /** Closes {@code fd}, ignoring what fails. */
    public static void closeQuietly(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(captureState(arena), fd);
        } catch (Throwable e) {
            // closing: nothing left to do with it
        }
    }
}
