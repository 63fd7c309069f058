package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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

    /** A socket with the options every DDP association needs (RFC 5043 §5.1, §8, §9, §10). */
    static MemorySegment open(int streams, int adaptation, int sctpMtu) throws IOException {
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
                setPathMtu(socket, state, arena, sctpMtu);
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
     * Fixes the association's path MTU, discovery off, so that no SCTP packet exceeds {@code sctpMtu} octets (no
     * IP header in AF_CONN). usrsctp 0.9.5 sizes the fragments of a large message as if the MTU excluded the
     * SCTP common header (measured: a 64 KiB message at MTU 65504 left in 65516-octet packets), so it is told
     * 12 octets less; a whole message then fills at most {@code sctpMtu - 12} octets, and the fragment of a
     * larger one exactly {@code sctpMtu}.
     */
    private static void setPathMtu(MemorySegment socket, MemorySegment state, Arena arena, int sctpMtu)
            throws IOException {
        MemorySegment params = arena.allocate(Usrsctp.PADDRPARAMS_SIZE);
        params.set(JAVA_INT, 136, sctpMtu - UsrsctpStack.SCTP_COMMON_HEADER);
        params.set(JAVA_INT, 140, Usrsctp.SPP_PMTUD_DISABLE);
        setsockopt(socket, state, Usrsctp.SCTP_PEER_ADDR_PARAMS, params, "path MTU");
    }

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
