package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
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
import java.nio.ByteOrder;

/**
 * The parts of Debian's libusrsctp2 (usrsctp 0.9.5) the backend calls, through {@code java.lang.foreign}, with
 * usrsctp's own constants and struct layouts: they differ from Linux's ({@code SCTP_ADAPTATION_LAYER} is 8
 * here and 7 in Linux; {@code sctp_udpencaps} puts the address first). Offsets are those of
 * {@code /usr/include/usrsctp.h} on x86-64 and arm64 Linux.
 */
@SuppressWarnings("restricted") // native access is the point of this class; enable it for org.rddp.transport.sctp
final class Usrsctp {
    static final int AF_INET = 2;
    /** usrsctp's own address family: an opaque link pointer, with the packets carried by the application. */
    static final int AF_CONN = 123;
    static final int SOCK_STREAM = 1;
    static final int IPPROTO_SCTP = 132;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_ERROR = 4;
    static final int SHUT_WR = 1;

    static final int SCTP_RTOINFO = 0x01;
    static final int SCTP_ASSOCINFO = 0x02;
    static final int SCTP_INITMSG = 0x03;
    static final int SCTP_NODELAY = 0x04;
    static final int SCTP_ADAPTATION_LAYER = 0x08;
    static final int SCTP_PEER_ADDR_PARAMS = 0x0a;
    /** struct sctp_sack_info: the association id, sack_delay (ms), sack_freq (0: as it is). */
    static final int SCTP_DELAYED_SACK = 0x0f;
    static final long SACK_INFO_SIZE = 12;
    static final long SACK_INFO_DELAY = 4;
    static final int SCTP_EVENT = 0x1e;
    static final int SCTP_RECVRCVINFO = 0x1f;
    /** Not in usrsctp.h, but its socket options take it (FreeBSD's netinet/sctp.h). */
    static final int SCTP_PEER_ADDR_THLDS = 0x23;
    /** Read-only: {@code struct sctp_status} of the (one) association of a one-to-one socket. */
    static final int SCTP_STATUS = 0x100;
    /** {@code struct sctp_status}: assoc id, state, rwnd, two counters, then the streams each way (usrsctp.h). */
    static final long STATUS_SIZE = 176;
    /** sctp_status.sstat_state, and the states a connect passes through (usrsctp's sctp.h, as BSD's). */
    static final long STATUS_STATE = 4;
    static final int SCTP_COOKIE_WAIT = 0x0002;
    static final int SCTP_COOKIE_ECHOED = 0x0004;
    static final int SCTP_ESTABLISHED = 0x0008;
    static final long STATUS_UNACKDATA = 12;
    static final long STATUS_INSTRMS = 16;
    static final long STATUS_OUTSTRMS = 18;
    /** sstat_primary (struct sctp_paddrinfo after a sockaddr_storage at 24): its state and RTO (ms). */
    static final long STATUS_PRIMARY_STATE = 156;
    static final long STATUS_PRIMARY_RTO = 168;
    static final int SCTP_ADDR_ACTIVE = 0x0001;
    static final int SCTP_ADDR_UNCONFIRMED = 0x0200;

    static final int SCTP_SENDV_SNDINFO = 1;
    static final int SCTP_RECVV_RCVINFO = 1;
    static final int SCTP_UNORDERED = 0x0400;
    static final int MSG_NOTIFICATION = 0x2000;
    static final int MSG_EOR = 0x80;
    static final int SPP_HB_ENABLE = 0x01;
    static final int SPP_PMTUD_DISABLE = 0x10;

    static final int SCTP_ASSOC_CHANGE = 0x0001;
    static final int SCTP_SHUTDOWN_EVENT = 0x0005;
    static final int SCTP_ADAPTATION_INDICATION = 0x0006;
    static final int SCTP_COMM_LOST = 0x0002;
    static final int SCTP_SHUTDOWN_COMP = 0x0004;
    static final int SCTP_CANT_STR_ASSOC = 0x0005;
    static final int SCTP_EVENT_READ = 0x0001;
    static final int SCTP_EVENT_WRITE = 0x0002;

    static final int EAGAIN = 11;
    static final int ECONNABORTED = 103;
    static final int ECONNRESET = 104;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EINPROGRESS = 115;

    /** sockaddr_in: family (host order), port (network order), address, padding. */
    static final long SOCKADDR_IN_SIZE = 16;
    /** sockaddr_conn: family (host order), port (network order), padding, the link pointer. */
    static final long SOCKADDR_CONN_SIZE = 16;
    /** sockaddr_storage. */
    static final long SOCKADDR_STORAGE_SIZE = 128;
    /** sctp_sndinfo: sid, flags, ppid (network order), context, assoc id. */
    static final long SNDINFO_SIZE = 16;
    /** sctp_rcvinfo: sid, ssn, flags, 2 padding octets, ppid, tsn, cumtsn, context, assoc id. */
    static final long RCVINFO_SIZE = 28;
    static final long RCVINFO_SID = 0;
    static final long RCVINFO_FLAGS = 4;
    static final long RCVINFO_PPID = 8;
    /** sctp_paddrparams: sockaddr_storage, assoc id, hbinterval, pathmtu, flags, flowlabel, pathmaxrxt, dscp. */
    static final long PADDRPARAMS_SIZE = 152;

    static final ValueLayout.OfShort U16_BE = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32_BE = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");
    private static final SymbolLookup LIBRARY;
    private static final String LOAD_FAILURE;

    static {
        SymbolLookup lookup = null;
        String failure = null;
        try {
            lookup = SymbolLookup.libraryLookup("libusrsctp.so.2", Arena.global());
        } catch (IllegalArgumentException e) {
            failure = "usrsctp is not installed (libusrsctp.so.2 not found): apt-get install libusrsctp2";
        }
        LIBRARY = lookup;
        LOAD_FAILURE = failure;
    }

    static final MethodHandle INIT_NOTHREADS = handle("usrsctp_init_nothreads", FunctionDescriptor.ofVoid(JAVA_SHORT,
            ADDRESS, ADDRESS), false);
    static final MethodHandle ENABLE_CRC32C_OFFLOAD = handle("usrsctp_enable_crc32c_offload",
            FunctionDescriptor.ofVoid(), false);
    static final MethodHandle HANDLE_TIMERS = handle("usrsctp_handle_timers", FunctionDescriptor.ofVoid(JAVA_INT),
            false);
    static final MethodHandle CONNINPUT = handle("usrsctp_conninput", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS,
            JAVA_LONG, JAVA_BYTE), false);
    static final MethodHandle REGISTER_ADDRESS = handle("usrsctp_register_address", FunctionDescriptor.ofVoid(
            ADDRESS), false);
    static final MethodHandle FINISH = handle("usrsctp_finish", FunctionDescriptor.of(JAVA_INT), false);
    static final MethodHandle SET_MAX_CHUNKS_ON_QUEUE = handle("usrsctp_sysctl_set_sctp_max_chunks_on_queue",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT), false);
    static final MethodHandle GET_MAX_CHUNKS_ON_QUEUE = handle("usrsctp_sysctl_get_sctp_max_chunks_on_queue",
            FunctionDescriptor.of(JAVA_INT), false);
    static final MethodHandle SOCKET = handle("usrsctp_socket", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS), true);
    static final MethodHandle SETSOCKOPT = handle("usrsctp_setsockopt", FunctionDescriptor.of(JAVA_INT, ADDRESS,
            JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), true);
    static final MethodHandle GETSOCKOPT = handle("usrsctp_getsockopt", FunctionDescriptor.of(JAVA_INT, ADDRESS,
            JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), true);
    static final MethodHandle BIND = handle("usrsctp_bind", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
            JAVA_INT), true);
    static final MethodHandle LISTEN = handle("usrsctp_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
            true);
    static final MethodHandle ACCEPT = handle("usrsctp_accept", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS,
            ADDRESS), true);
    static final MethodHandle CONNECT = handle("usrsctp_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
            JAVA_INT), true);
    static final MethodHandle SENDV = handle("usrsctp_sendv", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
            JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT), true);
    static final MethodHandle RECVV = handle("usrsctp_recvv", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
            JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS), true);
    static final MethodHandle CLOSE = handle("usrsctp_close", FunctionDescriptor.ofVoid(ADDRESS), false);
    static final MethodHandle SHUTDOWN = handle("usrsctp_shutdown", FunctionDescriptor.of(JAVA_INT, ADDRESS,
            JAVA_INT), true);
    static final MethodHandle SET_NON_BLOCKING = handle("usrsctp_set_non_blocking", FunctionDescriptor.of(JAVA_INT,
            ADDRESS, JAVA_INT), false);
    static final MethodHandle SET_UPCALL = handle("usrsctp_set_upcall", FunctionDescriptor.of(JAVA_INT, ADDRESS,
            ADDRESS, ADDRESS), false);
    static final MethodHandle GET_EVENTS = handle("usrsctp_get_events", FunctionDescriptor.of(JAVA_INT, ADDRESS),
            false);

    private Usrsctp() {
    }

    /** Why usrsctp cannot be used, or null if it can. */
    static String unavailable() {
        return LOAD_FAILURE;
    }

    static final MethodHandle GET_STAT = handle("usrsctp_get_stat", FunctionDescriptor.ofVoid(ADDRESS), false);
    /** Room for usrsctp's {@code struct sctpstat} (about 700 octets in 0.9.5, with spares for later fields). */
    private static final long STAT_SIZE = 2048;
    /** {@code sctps_sendretransdata}: after an 8-octet time, 43 32-bit counters (usrsctp.h, unchanged since 0.9). */
    private static final long RETRANSMITTED_DATA_OFFSET = 172;

    /** DATA chunks the stack of this process has sent again (after a T3 timeout or a fast retransmit). */
    @SuppressWarnings("checkstyle:IllegalCatch") // invokeExact declares Throwable; a failed read is a bug here
    static long retransmittedData() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stat = arena.allocate(STAT_SIZE, 8);
            GET_STAT.invokeExact(stat);
            return Integer.toUnsignedLong(stat.get(JAVA_INT, RETRANSMITTED_DATA_OFFSET));
        } catch (Throwable e) {
            throw new IllegalStateException("usrsctp_get_stat failed", e);
        }
    }

    /**
     * What struct sctpstat counts of sending and of loss recovery, at its offsets (netinet/sctp_uio.h: a timeval, then
     * 32-bit counters), by name: how a lossy path's losses were repaired, by fast retransmit or by timeout.
     */
    private static final String[] STAT_NAMES = {"DATA chunks sent", "DATA chunks sent again", "fast retransmits",
        "fast retransmits of a chunk already fast-retransmitted", "T3 (retransmission) timeouts", "SACKs sent",
        "SACKs received", "duplicate DATA chunks received", "sends held back by max burst"};
    private static final long[] STAT_OFFSETS = {168, 172, 176, 180, 272, 164, 96, 104, 428};

    /** {@link #STAT_NAMES}' counts for the process now, in that order. */
    @SuppressWarnings("checkstyle:IllegalCatch") // invokeExact declares Throwable; a failed read is a bug here
    static java.util.Map<String, Long> statistics() {
        java.util.Map<String, Long> counts = new java.util.LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stat = arena.allocate(STAT_SIZE, 8);
            GET_STAT.invokeExact(stat);
            for (int i = 0; i < STAT_NAMES.length; i++) {
                counts.put(STAT_NAMES[i], Integer.toUnsignedLong(stat.get(JAVA_INT, STAT_OFFSETS[i])));
            }
        } catch (Throwable e) {
            throw new IllegalStateException("usrsctp_get_stat failed", e);
        }
        return counts;
    }

    /** Sets usrsctp's sysctl {@code sctp_<name>} through {@code usrsctp_sysctl_set_sctp_<name>}; 0 on success. */
    static int setSysctl(String name, long value) throws Throwable {
        MethodHandle setter = handle("usrsctp_sysctl_set_sctp_" + name, FunctionDescriptor.of(JAVA_INT, JAVA_INT),
                false);
        return (int) setter.invokeExact((int) value);
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor, boolean errno) {
        if (LIBRARY == null) {
            return null;
        }
        MemorySegment symbol = LIBRARY.find(name)
                .orElseThrow(() -> new IllegalStateException("libusrsctp.so.2 lacks " + name));
        return errno ? LINKER.downcallHandle(symbol, descriptor, ERRNO_OPTION) : LINKER.downcallHandle(symbol,
                descriptor);
    }

    /** A segment to pass as the captured call state of calls made with errno capture. */
    static MemorySegment captureState(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    /** errno as the last call with {@code state} left it. */
    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Writes a sockaddr_conn for {@code port} over the link whose pointer is {@code link}. */
    static MemorySegment sockaddrConn(Arena arena, MemorySegment link, int port) {
        MemorySegment sockaddr = arena.allocate(SOCKADDR_CONN_SIZE, 8);
        sockaddr.set(JAVA_SHORT, 0, (short) AF_CONN);
        sockaddr.set(U16_BE, 2, (short) port);
        sockaddr.set(ADDRESS, 8, link);
        return sockaddr;
    }

    /** The link pointer of a sockaddr_conn. */
    static long connLink(MemorySegment sockaddr) {
        return sockaddr.get(ADDRESS, 8).address();
    }

    /** The port of a sockaddr_in or sockaddr_conn (both keep it at offset 2, in network order). */
    static int port(MemorySegment sockaddr) {
        return sockaddr.get(U16_BE, 2) & 0xFFFF;
    }

    /** An int option value. */
    static MemorySegment intValue(Arena arena, int value) {
        MemorySegment segment = arena.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        return segment;
    }
}
