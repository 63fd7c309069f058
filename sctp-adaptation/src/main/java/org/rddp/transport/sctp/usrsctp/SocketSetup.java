package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rddp.transport.sctp.ProtocolParameters;

/**
 * A usrsctp socket made ready for DDP, before it carries an association: the options every DDP association needs
 * (RFC 5043 §5.1, §8, §9, §10), its binding, and, once the handshake is over, the streams it settled. A socket that
 * fails on the way is closed quietly, the first error being the one reported.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class SocketSetup {
    private static final int EADDRINUSE = 98;

    private SocketSetup() {
    }

    /**
     * Binds {@code address} (a link, or NULL for every link) at a free port from the dynamic range (usrsctp does not
     * report the one it would pick).
     */
    static int bindEphemeral(MemorySegment socket, Arena arena, MemorySegment state, MemorySegment address)
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

    /**
     * A socket with the options every DDP association needs (RFC 5043 §5.1, §8, §9, §10). One that will
     * {@code connect} has the potentially-failed state off until its association is up ({@link #handshakeDone}).
     */
    static MemorySegment open(int streams, int adaptation, int sctpMtu, ProtocolParameters parameters,
            boolean connect) throws IOException {
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
                init.set(JAVA_SHORT, INITMSG_MAX_ATTEMPTS, (short) parameters.maxInitRetransmits());
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
                failureDetection(socket, state, arena, sctpMtu, parameters);
                thresholds(socket, state, arena, parameters, connect ? parameters.pathMaxRetrans()
                        : parameters.pfThreshold());
                socketOption(socket, state, Usrsctp.SO_SNDBUF, Usrsctp.intValue(arena, UsrsctpStack.SOCKET_BUFFER));
                socketOption(socket, state, Usrsctp.SO_RCVBUF, Usrsctp.intValue(arena, UsrsctpStack.SOCKET_BUFFER));
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
     * The socket's failure detection, as {@code parameters} say (the associations it makes or accepts take them):
     * RTO bounds, Association.Max.Retrans, heartbeats, Path.Max.Retrans and the potentially-failed threshold. And
     * its path MTU, discovery off, so that no SCTP packet exceeds {@code sctpMtu} octets (no IP header in AF_CONN).
     * usrsctp 0.9.5 sizes the fragments of a large message as if the MTU excluded the SCTP common header
     * (measured: a 64 KiB message at MTU 65504 left in 65516-octet packets), so it is told 12 octets less; a whole
     * message then fills at most {@code sctpMtu - 12} octets, and the fragment of a larger one exactly
     * {@code sctpMtu}.
     */
    private static void failureDetection(MemorySegment socket, MemorySegment state, Arena arena, int sctpMtu,
            ProtocolParameters parameters) throws IOException {
        MemorySegment rto = arena.allocate(RTOINFO_SIZE);
        rto.set(JAVA_INT, RTOINFO_INITIAL, (int) parameters.rtoInitial().toMillis());
        rto.set(JAVA_INT, RTOINFO_MAX, (int) parameters.rtoMax().toMillis());
        rto.set(JAVA_INT, RTOINFO_MIN, (int) parameters.rtoMin().toMillis());
        setsockopt(socket, state, Usrsctp.SCTP_RTOINFO, rto, "RTO bounds");
        MemorySegment association = arena.allocate(ASSOCPARAMS_SIZE); // zeros elsewhere: left as they are
        association.set(JAVA_SHORT, ASSOCPARAMS_MAX_RETRANS, (short) parameters.associationMaxRetrans());
        setsockopt(socket, state, Usrsctp.SCTP_ASSOCINFO, association, "Association.Max.Retrans");
        MemorySegment params = arena.allocate(Usrsctp.PADDRPARAMS_SIZE);
        params.set(JAVA_INT, PADDRPARAMS_HB_INTERVAL, (int) parameters.hbInterval().toMillis());
        params.set(JAVA_INT, PADDRPARAMS_MTU, sctpMtu - UsrsctpStack.SCTP_COMMON_HEADER);
        params.set(JAVA_INT, PADDRPARAMS_FLAGS, Usrsctp.SPP_PMTUD_DISABLE | Usrsctp.SPP_HB_ENABLE);
        params.set(JAVA_SHORT, PADDRPARAMS_PATH_MAX_RETRANS, (short) parameters.pathMaxRetrans());
        setsockopt(socket, state, Usrsctp.SCTP_PEER_ADDR_PARAMS, params, "path MTU and heartbeats");
        MemorySegment sack = arena.allocate(Usrsctp.SACK_INFO_SIZE); // the frequency 0: left as it is
        sack.set(JAVA_INT, Usrsctp.SACK_INFO_DELAY, (int) parameters.sackDelay().toMillis());
        setsockopt(socket, state, Usrsctp.SCTP_DELAYED_SACK, sack, "SACK delay");
    }

    /**
     * Path.Max.Retrans and the potentially-failed threshold {@code pf} (at or above Path.Max.Retrans: off) of the
     * socket, or of its association and every path of it once it has one.
     */
    private static void thresholds(MemorySegment socket, MemorySegment state, Arena arena,
            ProtocolParameters parameters, int pf) throws IOException {
        MemorySegment thresholds = arena.allocate(PADDRTHLDS_SIZE, 8);
        // an association's every path: the wildcard of its kind of address (a null sconn_addr); the socket's own
        // values before it has one
        thresholds.set(JAVA_SHORT, 0, (short) Usrsctp.AF_CONN);
        thresholds.set(JAVA_SHORT, PADDRTHLDS_PATH_MAX_RETRANS, (short) parameters.pathMaxRetrans());
        thresholds.set(JAVA_SHORT, PADDRTHLDS_PF, (short) Math.min(pf, 0xFFFF));
        thresholds.set(JAVA_SHORT, PADDRTHLDS_PRIMARY_SWITCHOVER, (short) 0xFFFF); // off: usrsctp takes no other
        setsockopt(socket, state, Usrsctp.SCTP_PEER_ADDR_THLDS, thresholds, "potentially-failed threshold");
    }

    /**
     * Turns the potentially-failed state on for a connected socket's association, as {@code parameters} say. It is
     * off during the handshake: usrsctp 0.9.5 counts a lost INIT ACK or COOKIE ECHO as a path's timeout and, with the
     * state on, sends a HEARTBEAT at once, in COOKIE-ECHOED, which RFC 9260 §5.1 forbids before the COOKIE ACK; a
     * peer whose COOKIE ECHO was lost has no association for it and answers with an ABORT (§8.4), and the connect
     * fails (seen under 5 % loss: about one connect in a few hundred).
     */
    static void handshakeDone(MemorySegment socket, ProtocolParameters parameters) throws IOException {
        if (parameters.pfThreshold() >= parameters.pathMaxRetrans()) {
            return; // off already
        }
        try (Arena arena = Arena.ofConfined()) {
            thresholds(socket, Usrsctp.captureState(arena), arena, parameters, parameters.pfThreshold());
        }
    }

    /**
     * Sets the path MTU of {@code socket}'s association to {@code sctpMtu} (its paths, discovery off), as
     * {@link #failureDetection} does for a socket before it has one; usrsctp then sizes its packets for it.
     */
    static void pathMtu(MemorySegment socket, int sctpMtu) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            MemorySegment params = arena.allocate(Usrsctp.PADDRPARAMS_SIZE, 8);
            params.set(JAVA_SHORT, 0, (short) Usrsctp.AF_CONN); // the association's every path
            params.set(JAVA_INT, PADDRPARAMS_MTU, sctpMtu - UsrsctpStack.SCTP_COMMON_HEADER);
            params.set(JAVA_INT, PADDRPARAMS_FLAGS, Usrsctp.SPP_PMTUD_DISABLE);
            setsockopt(socket, state, Usrsctp.SCTP_PEER_ADDR_PARAMS, params, "path MTU");
        }
    }

    /**
     * What the stack applies to {@code socket}'s association: its protocol parameters read back (RTO bounds and
     * Association.Max.Retrans of the association; Path.Max.Retrans, the potentially-failed threshold and the
     * heartbeat interval of its paths; Max.Init.Retransmits of the socket).
     */
    static ProtocolParameters protocolParameters(MemorySegment socket) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            MemorySegment rto = getsockopt(socket, state, arena, Usrsctp.SCTP_RTOINFO, RTOINFO_SIZE);
            MemorySegment association = getsockopt(socket, state, arena, Usrsctp.SCTP_ASSOCINFO, ASSOCPARAMS_SIZE);
            MemorySegment params = getsockopt(socket, state, arena, Usrsctp.SCTP_PEER_ADDR_PARAMS,
                    Usrsctp.PADDRPARAMS_SIZE);
            MemorySegment thresholds = getsockopt(socket, state, arena, Usrsctp.SCTP_PEER_ADDR_THLDS,
                    PADDRTHLDS_SIZE);
            MemorySegment init = getsockopt(socket, state, arena, Usrsctp.SCTP_INITMSG, 8);
            MemorySegment sack = getsockopt(socket, state, arena, Usrsctp.SCTP_DELAYED_SACK, Usrsctp.SACK_INFO_SIZE);
            return new ProtocolParameters(java.time.Duration.ofMillis(rto.get(JAVA_INT, RTOINFO_INITIAL)),
                    java.time.Duration.ofMillis(rto.get(JAVA_INT, RTOINFO_MIN)),
                    java.time.Duration.ofMillis(rto.get(JAVA_INT, RTOINFO_MAX)),
                    Short.toUnsignedInt(association.get(JAVA_SHORT, ASSOCPARAMS_MAX_RETRANS)),
                    Short.toUnsignedInt(thresholds.get(JAVA_SHORT, PADDRTHLDS_PATH_MAX_RETRANS)),
                    Short.toUnsignedInt(thresholds.get(JAVA_SHORT, PADDRTHLDS_PF)),
                    Short.toUnsignedInt(init.get(JAVA_SHORT, INITMSG_MAX_ATTEMPTS)),
                    java.time.Duration.ofMillis(Integer.toUnsignedLong(params.get(JAVA_INT, PADDRPARAMS_HB_INTERVAL))),
                    java.time.Duration.ofMillis(Integer.toUnsignedLong(sack.get(JAVA_INT, Usrsctp.SACK_INFO_DELAY))));
        }
    }

    private static MemorySegment getsockopt(MemorySegment socket, MemorySegment state, Arena arena, int option,
            long size) throws IOException {
        MemorySegment value = arena.allocate(size, 8);
        if (option == Usrsctp.SCTP_PEER_ADDR_PARAMS || option == Usrsctp.SCTP_PEER_ADDR_THLDS) {
            // the association's own values: its (only) kind of address, the wildcard (a null sconn_addr); with
            // no family at all usrsctp answers EAFNOSUPPORT
            value.set(JAVA_SHORT, 0, (short) Usrsctp.AF_CONN);
        }
        MemorySegment length = arena.allocate(JAVA_INT);
        length.set(JAVA_INT, 0, (int) size);
        try {
            int result = (int) Usrsctp.GETSOCKOPT.invokeExact(state, socket, Usrsctp.IPPROTO_SCTP, option, value,
                    length);
            if (result != 0) {
                throw new IOException("usrsctp_getsockopt(" + option + ") failed, errno " + Usrsctp.errno(state));
            }
            return value;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /** usrsctp's (FreeBSD's) layouts: struct sctp_initmsg, sctp_rtoinfo, sctp_assocparams, sctp_paddrparams. */
    private static final long INITMSG_MAX_ATTEMPTS = 4;
    private static final long RTOINFO_SIZE = 16;
    private static final long RTOINFO_INITIAL = 4;
    private static final long RTOINFO_MAX = 8;
    private static final long RTOINFO_MIN = 12;
    private static final long ASSOCPARAMS_SIZE = 20;
    private static final long ASSOCPARAMS_MAX_RETRANS = 16;
    private static final long PADDRPARAMS_HB_INTERVAL = 132;
    private static final long PADDRPARAMS_MTU = 136;
    private static final long PADDRPARAMS_FLAGS = 140;
    private static final long PADDRPARAMS_PATH_MAX_RETRANS = 148;
    /** struct sctp_paddrthlds: an address (sockaddr_storage), the association id, then three 16-bit thresholds. */
    private static final long PADDRTHLDS_SIZE = 144;
    private static final long PADDRTHLDS_PATH_MAX_RETRANS = 132;
    private static final long PADDRTHLDS_PF = 134;
    private static final long PADDRTHLDS_PRIMARY_SWITCHOVER = 136;

    /**
     * The streams the association has each way, as the handshake settled them (SCTP_STATUS): the fewer of ours and
     * the peer's, which may grant fewer than asked (RFC 9260 §5.1.1). Sessions go on these only.
     */
    static int negotiatedStreams(MemorySegment socket, Arena arena, MemorySegment state) throws IOException {
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

    static void bind(MemorySegment socket, Arena arena, MemorySegment state, MemorySegment link, int port)
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

    static void closeQuietly(MemorySegment socket) {
        try {
            UsrsctpRuntime.close(socket);
        } catch (Throwable e) {
            // already failing: the first error is the one to report
        }
    }
}
