package org.rddp.transport.sctp.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * The Linux kernel's SCTP through {@code java.lang.foreign}: libc's socket calls, epoll, and lksctp-tools'
 * {@code sctp_sendv}/{@code sctp_recvv} (Debian's libsctp1), with Linux's constants and struct layouts (they
 * differ from usrsctp's: keep one table per stack).
 */
@SuppressWarnings({"checkstyle:IllegalCatch", "restricted"}) // native access is the point of this class
final class Native {
    static final int AF_INET = 2;
    static final int SOCK_STREAM = 1;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int IPPROTO_SCTP = 132;
    static final int SOL_SOCKET = 1;
    static final int SO_ERROR = 4;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_LINGER = 13;
    static final int SHUT_WR = 1;

    static final int SCTP_INITMSG = 2;
    static final int SCTP_NODELAY = 3;
    static final int SCTP_ADAPTATION_LAYER = 7;
    static final int SCTP_EVENTS = 11;
    static final int SCTP_STATUS = 14;
    static final int SCTP_RECVRCVINFO = 32;
    static final int SCTP_SENDV_SNDINFO = 1;
    static final int SCTP_RECVV_RCVINFO = 1;
    static final int SCTP_UNORDERED = 1;
    static final int MSG_NOTIFICATION = 0x8000;
    static final int MSG_EOR = 0x80;

    static final int SCTP_ASSOC_CHANGE = 0x8001;
    static final int SCTP_SHUTDOWN_EVENT = 0x8005;
    static final int SCTP_ADAPTATION_INDICATION = 0x8007;
    static final int SCTP_COMM_LOST = 1;
    static final int SCTP_SHUTDOWN_COMP = 3;
    static final int SCTP_CANT_STR_ASSOC = 4;

    /** struct sctp_event_subscribe: one byte per event; association, shutdown and adaptation on. */
    static final int EVENTS_SIZE = 14;
    static final int EVENT_ASSOCIATION = 1;
    static final int EVENT_SHUTDOWN = 5;
    static final int EVENT_ADAPTATION = 7;
    static final long SNDINFO_SIZE = 16;
    static final long RCVINFO_SIZE = 28;
    static final long RCVINFO_FLAGS = 4;
    static final long RCVINFO_PPID = 8;
    /** struct sctp_status up to and including its primary path's MTU. */
    static final int STATUS_SIZE = 176;
    static final long STATUS_INSTRMS = 16;
    static final long STATUS_OUTSTRMS = 18;
    static final long STATUS_FRAGMENTATION_POINT = 20;
    static final long SOCKADDR_IN_SIZE = 16;
    static final long IOVEC_SIZE = 16;

    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLLIN = 0x1;
    static final int EPOLLOUT = 0x4;
    static final int EPOLLRDHUP = 0x2000;
    static final int EPOLLET = 1 << 31;
    /** struct epoll_event is packed on x86-64: events, then the 64-bit data. */
    static final long EPOLL_EVENT_SIZE = 12;
    static final short POLLOUT = 0x4;

    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int EINPROGRESS = 115;

    static final ValueLayout.OfShort U16_BE = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32_BE = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong EPOLL_DATA = JAVA_LONG.withByteAlignment(4);

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final SymbolLookup LIBSCTP;

    static {
        SymbolLookup lookup = null;
        try {
            lookup = SymbolLookup.libraryLookup("libsctp.so.1", Arena.global());
        } catch (IllegalArgumentException e) {
            // unavailable() says so
        }
        LIBSCTP = lookup;
    }

    static final MethodHandle SOCKET = libc("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle BIND = libc("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle LISTEN = libc("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle ACCEPT4 = libc("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS,
            JAVA_INT));
    static final MethodHandle CONNECT = libc("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT));
    static final MethodHandle POLL = libc("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    static final MethodHandle SETSOCKOPT = libc("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle GETSOCKOPT = libc("getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle GETSOCKNAME = libc("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            ADDRESS));
    static final MethodHandle SHUTDOWN = libc("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle EPOLL_CREATE1 = libc("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle EPOLL_CTL = libc("epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS));
    static final MethodHandle EPOLL_WAIT = libc("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT, JAVA_INT));
    static final MethodHandle STRERROR = LINKER.downcallHandle(LINKER.defaultLookup().find("strerror").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, JAVA_INT));
    static final MethodHandle SENDV = sctp("sctp_sendv", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT,
            ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle RECVV = sctp("sctp_recvv", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT,
            ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

    private Native() {
    }

    /** Why lksctp-tools' library is missing, or null. */
    static String libraryMissing() {
        return LIBSCTP == null ? "lksctp-tools' library is not installed (libsctp.so.1 not found): "
                + "apt-get install libsctp1" : null;
    }

    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("libc lacks " + name));
        return LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }

    private static MethodHandle sctp(String name, FunctionDescriptor descriptor) {
        if (LIBSCTP == null) {
            return null;
        }
        MemorySegment symbol = LIBSCTP.find(name)
                .orElseThrow(() -> new IllegalStateException("libsctp.so.1 lacks " + name));
        return LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }

    /** A segment to pass as the captured call state. */
    static MemorySegment captureState(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    /** errno as the last call with {@code state} left it. */
    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** The C library's text for {@code errno}, with the number. */
    static String describe(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.reinterpret(256).getString(0) + " (errno " + errno + ")";
        } catch (Throwable e) {
            return "errno " + errno;
        }
    }

    /** The text for the errno {@code state} holds. */
    static String describeErrno(MemorySegment state) {
        return describe(errno(state));
    }

    /** A sockaddr_in for an IPv4 socket address (the wildcard for null). */
    static MemorySegment sockaddr(Arena arena, InetSocketAddress address) throws UnknownHostException {
        MemorySegment sockaddr = arena.allocate(SOCKADDR_IN_SIZE, 4);
        sockaddr.set(JAVA_SHORT, 0, (short) AF_INET);
        sockaddr.set(U16_BE, 2, (short) address.getPort());
        byte[] ip = address.getAddress() == null ? new byte[4] : address.getAddress().getAddress();
        if (ip.length != 4) {
            throw new UnknownHostException("kernel SCTP here takes IPv4 addresses, not " + address);
        }
        MemorySegment.copy(MemorySegment.ofArray(ip), 0, sockaddr, 4, 4);
        return sockaddr;
    }

    /** The IPv4 socket address in a sockaddr_in. */
    static InetSocketAddress address(MemorySegment sockaddr) throws UnknownHostException {
        byte[] ip = new byte[4];
        MemorySegment.copy(sockaddr, 4, MemorySegment.ofArray(ip), 0, 4);
        return new InetSocketAddress(InetAddress.getByAddress(ip), sockaddr.get(U16_BE, 2) & 0xFFFF);
    }

    /** An int option value. */
    static MemorySegment intValue(Arena arena, int value) {
        MemorySegment segment = arena.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        return segment;
    }
}
