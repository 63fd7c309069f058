package org.rddp.transport.sctp.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The Linux kernel's SCTP through {@code java.lang.foreign}: lksctp-tools' {@code sctp_sendv}/{@code sctp_recvv}
 * (Debian's libsctp1) and Linux's SCTP constants and struct layouts (they differ from usrsctp's: keep one table per
 * stack); the generic socket calls are {@link org.rddp.posix.Posix}'s.
 */
@SuppressWarnings({"checkstyle:IllegalCatch", "restricted"}) // native access is the point of this class
final class Native {
    static final int SCTP_RTOINFO = 0;
    static final int SCTP_ASSOCINFO = 1;
    static final int SCTP_INITMSG = 2;
    static final int SCTP_NODELAY = 3;
    static final int SCTP_ADAPTATION_LAYER = 7;
    static final int SCTP_PEER_ADDR_PARAMS = 9;
    /** struct sctp_sack_info: the association id, sack_delay (ms), sack_freq (0: as it is). */
    static final int SCTP_DELAYED_SACK = 16;
    static final int SACK_INFO_SIZE = 12;
    static final long SACK_INFO_DELAY = 4;
    static final int SCTP_EVENTS = 11;
    static final int SCTP_STATUS = 14;
    static final int SCTP_RECVRCVINFO = 32;
    static final int SCTP_GET_ASSOC_STATS = 112;
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
    /** struct sctp_paddr_change (packed): type, flags, length, the address at 8, its state at 136. */
    static final int SCTP_PEER_ADDR_CHANGE = 0x8002;
    static final long PADDR_CHANGE_ADDRESS = 8;
    static final long PADDR_CHANGE_STATE = 136;
    static final long PADDR_CHANGE_SIZE = 148;
    /** SCTP_STATUS's primary path (struct sctp_paddrinfo, packed) has its address at 28. */
    static final long STATUS_PRIMARY_ADDRESS = 28;
    /** struct sctp_prim (packed, aligned 4): association id, the address at 4 (a sockaddr_storage). */
    static final int SCTP_PRIMARY_ADDR = 6;
    static final long PRIM_ADDRESS = 4;
    static final long PRIM_SIZE = 132;
    /** struct sctp_getaddrs: association id, the count at 4, then the addresses packed from 8. */
    static final int SCTP_GET_PEER_ADDRS = 108;
    /** struct sctp_paddrinfo (packed): association id, the address at 4, state at 132, RTO at 144. */
    static final int SCTP_GET_PEER_ADDR_INFO = 15;
    static final long PADDRINFO_SIZE = 152;
    static final long PADDRINFO_ADDRESS = 4;
    static final long PADDRINFO_STATE = 132;
    static final long PADDRINFO_RTO = 144;
    /** Linux 5.5+: report the potentially-failed state (SCTP_PF_EXPOSE_ENABLE) as path changes. */
    static final int SCTP_EXPOSE_POTENTIALLY_FAILED_STATE = 131;
    static final int SCTP_PF_EXPOSE_ENABLE = 2;
    /** setsockopt's sctp_bindx: adds the packed addresses to a socket's binding. */
    static final int SCTP_SOCKOPT_BINDX_ADD = 100;
    static final int SCTP_CANT_STR_ASSOC = 4;

    /** struct sctp_rtoinfo: association id, then initial, max and min in milliseconds. */
    static final int RTOINFO_SIZE = 16;
    /** struct sctp_assocparams: association id, then Association.Max.Retrans (u16) at 4; zeros change nothing. */
    static final int ASSOCPARAMS_SIZE = 20;
    static final long ASSOCPARAMS_MAX_RETRANS = 4;
    /**
     * struct sctp_paddrparams (packed) up to its flags, the size every Linux since 2.6 takes: association id,
     * a zero address (every path), heartbeat interval (ms), Path.Max.Retrans (u16), path MTU, SACK delay, flags.
     */
    static final int PADDRPARAMS_SIZE = 152;
    static final long PADDRPARAMS_HB_INTERVAL = 132;
    static final long PADDRPARAMS_PATH_MAX_RETRANS = 136;
    static final long PADDRPARAMS_FLAGS = 146;
    static final int SPP_HB_ENABLE = 1;
    /** struct sctp_paddrthlds: association id, a zero address (every path), Path.Max.Retrans and PF threshold. */
    static final int SCTP_PEER_ADDR_THLDS = 31;
    static final int PADDRTHLDS_SIZE = 144;
    static final long PADDRTHLDS_PATH_MAX_RETRANS = 136;
    static final long PADDRTHLDS_PF = 138;
    /** struct sctp_initmsg: streams out and in, then Max.Init.Retransmits (u16) at 4. */
    static final long INITMSG_MAX_ATTEMPTS = 4;

    /** struct sctp_event_subscribe: one byte per event; association, shutdown and adaptation on. */
    static final int EVENTS_SIZE = 14;
    static final int EVENT_ASSOCIATION = 1;
    static final int EVENT_ADDRESS = 2;
    static final int EVENT_SHUTDOWN = 5;
    static final int EVENT_ADAPTATION = 7;
    static final long SNDINFO_SIZE = 16;
    static final long RCVINFO_SIZE = 28;
    static final long RCVINFO_FLAGS = 4;
    static final long RCVINFO_PPID = 8;
    /** struct sctp_status up to and including its primary path's MTU. */
    static final int STATUS_SIZE = 176;
    static final long STATUS_UNACKDATA = 12;
    static final long STATUS_INSTRMS = 16;
    static final long STATUS_OUTSTRMS = 18;
    static final long STATUS_FRAGMENTATION_POINT = 20;
    /**
     * struct sctp_assoc_stats (Linux 3.8+): an association id, a sockaddr_storage (8-aligned: at 8), then 15 64-bit
     * counters from sas_maxrto at 136; sas_rtxchunks, the DATA chunks sent again, is the sixth.
     */
    static final int ASSOC_STATS_SIZE = 256;
    static final long ASSOC_STATS_RTXCHUNKS = 176;
    static final long IOVEC_SIZE = 16;

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

    private static MethodHandle sctp(String name, FunctionDescriptor descriptor) {
        if (LIBSCTP == null) {
            return null;
        }
        MemorySegment symbol = LIBSCTP.find(name)
                .orElseThrow(() -> new IllegalStateException("libsctp.so.1 lacks " + name));
        return Linker.nativeLinker().downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }
}
